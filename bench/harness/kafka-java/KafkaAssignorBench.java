// Times Kafka's own server assignor classes (vendored in kafka/, see README.md) on a group written by
// the bench (bench/harness/assignor-group-file.ts), in a fresh JVM: the first call of the process,
// then N warm calls, in wall time and in process CPU time, the way the bench times Cohort's port.
// The group is built as Kafka's coordinator hands it to the assignor (TargetAssignmentBuilder.build):
// members in a HashMap filled in the file's order, each member's subscribed names a HashSet viewed as
// ids through TopicIds and a CachedTopicResolver, each current target as Assignment.fromRecord reads a
// record (a HashMap filled in the record's order, each topic's partitions a HashSet of the list), the
// inverted target assignment, and topic ids UUID.nameUUIDFromBytes of the UTF-8 name, as Cohort fixes
// them. Only assign() is timed; building the spec is the coordinator's bookkeeping, not the assignor's.
//
// Usage: java KafkaAssignorBench <group file> <result file> <warm runs> <uniform|range>
// Prints one JSON line: {"firstMs","firstCpuMs","firstThreadCpuMs","warmMs":[...],"warmCpuMs":[...],
// "settledMs":[...],"settledCpuMs":[...],"settleCalls","jitQuiet"}: the N calls right after the first,
// and 3N more once the JIT has settled (see main; jitQuiet false: a budget ran out first).
// The result file holds the first call's assignment, members in the file's order, each member's
// topics and partitions in the order Kafka's maps and sets iterate them.
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;
import org.apache.kafka.coordinator.group.modern.TopicMetadata;
import org.apache.kafka.image.TopicImage;
import org.apache.kafka.image.TopicsImage;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

public final class KafkaAssignorBench {
    /** One member as the group file lists it. */
    static final class FileMember {
        final String memberId;
        final List<String> subscribed = new ArrayList<>();
        /** Topic name -> partitions, in the file's (the record's) order. */
        final List<Map.Entry<String, List<Integer>>> target = new ArrayList<>();

        FileMember(String memberId) {
            this.memberId = memberId;
        }
    }

    /** Whitespace-separated tokens; names are percent-encoded by the writer, so none holds a space. */
    static final class Tokens {
        private final String[] tokens;
        private int next = 0;

        Tokens(String text) {
            this.tokens = text.trim().split("\\s+");
        }

        boolean more() {
            return next < tokens.length;
        }

        String word() {
            return tokens[next++];
        }

        String name() {
            return URLDecoder.decode(word(), StandardCharsets.UTF_8);
        }

        int number() {
            return Integer.parseInt(word());
        }
    }

    static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    static final boolean SCHEDSTAT = Files.isReadable(Paths.get("/proc/self/schedstat"));

    /**
     * The process's CPU time, ns: on Linux the sum of every thread's time on a CPU (schedstat, ns, GC and
     * JIT compiler threads included), since the OS bean's figure moves in 10 ms clock ticks there, too
     * coarse for calls of a few ms; elsewhere the OS bean's.
     */
    static long processCpuNanos() {
        if (!SCHEDSTAT) return OS.getProcessCpuTime();
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = new String(Files.readAllBytes(task.resolve("schedstat")), StandardCharsets.US_ASCII);
                    sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                } catch (IOException | RuntimeException gone) {
                    // A thread that ended between listing and reading.
                }
            }
        } catch (IOException e) {
            return OS.getProcessCpuTime();
        }
        return sum;
    }

    static Uuid topicId(String name) {
        UUID id = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) throw new IllegalArgumentException("usage: KafkaAssignorBench <group file> <result file> <warm runs> <uniform|range>");
        Tokens in = new Tokens(new String(Files.readAllBytes(Paths.get(args[0])), StandardCharsets.UTF_8));
        int runs = Integer.parseInt(args[2]);
        ConsumerGroupPartitionAssignor assignor;
        if (args[3].equals("uniform")) assignor = new UniformAssignor();
        else if (args[3].equals("range")) assignor = new RangeAssignor();
        else throw new IllegalArgumentException("unknown assignor " + args[3]);

        if (!in.word().equals("cohort-assignor-group") || in.number() != 1) throw new IllegalArgumentException("not a group file of version 1");
        Map<String, Integer> partitionsPerTopic = new LinkedHashMap<>();
        List<FileMember> fileMembers = new ArrayList<>();
        while (in.more()) {
            String kind = in.word();
            if (kind.equals("topic")) {
                String name = in.name();
                partitionsPerTopic.put(name, in.number());
            } else if (kind.equals("member")) {
                FileMember member = new FileMember(in.name());
                for (int s = in.number(); s > 0; s--) member.subscribed.add(in.name());
                for (int e = in.number(); e > 0; e--) {
                    String topic = in.name();
                    List<Integer> partitions = new ArrayList<>();
                    for (int p = in.number(); p > 0; p--) partitions.add(in.number());
                    member.target.add(Map.entry(topic, partitions));
                }
                fileMembers.add(member);
            } else {
                throw new IllegalArgumentException("unknown line kind " + kind);
            }
        }

        // The topics image and the subscription metadata, as the coordinator holds them.
        TopicsImage image = new TopicsImage();
        Map<Uuid, TopicMetadata> topicMetadata = new HashMap<>();
        partitionsPerTopic.forEach((name, partitions) -> {
            Uuid id = topicId(name);
            image.add(new TopicImage(name, id));
            topicMetadata.put(id, new TopicMetadata(id, name, partitions));
        });
        TopicIds.TopicResolver resolver = new TopicIds.CachedTopicResolver(image);

        Map<String, MemberSubscriptionAndAssignmentImpl> memberSpecs = new HashMap<>();
        Map<Uuid, Map<Integer, String>> invertedTargetAssignment = new HashMap<>();
        Map<String, Integer> subscriberCounts = new HashMap<>();
        for (FileMember member : fileMembers) {
            // ConsumerGroupMember keeps the names the member sent as new HashSet<>(list).
            Set<String> names = new HashSet<>(member.subscribed);
            for (String name : names) subscriberCounts.merge(name, 1, Integer::sum);
            Assignment target = member.target.isEmpty() ? Assignment.EMPTY : new Assignment(
                member.target.stream().collect(Collectors.toMap(
                    entry -> topicId(entry.getKey()),
                    entry -> new HashSet<>(entry.getValue()))));
            for (Map.Entry<Uuid, Set<Integer>> entry : target.partitions().entrySet())
                for (int partition : entry.getValue())
                    invertedTargetAssignment.computeIfAbsent(entry.getKey(), __ -> new HashMap<>()).put(partition, member.memberId);
            memberSpecs.put(member.memberId, new MemberSubscriptionAndAssignmentImpl(
                Optional.empty(), Optional.empty(), new TopicIds(names, resolver), target));
        }
        // ModernGroup.subscriptionType: homogeneous when every subscribed name has every member.
        SubscriptionType type = SubscriptionType.HOMOGENEOUS;
        for (int count : subscriberCounts.values()) if (count != fileMembers.size()) type = SubscriptionType.HETEROGENEOUS;
        GroupSpecImpl groupSpec = new GroupSpecImpl(Collections.unmodifiableMap(memberSpecs), type, invertedTargetAssignment);
        SubscribedTopicDescriberImpl describer = new SubscribedTopicDescriberImpl(topicMetadata);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.gc();
        long cpu = processCpuNanos();
        long threadCpu = threads.getCurrentThreadCpuTime();
        long started = System.nanoTime();
        GroupAssignment first = assignor.assign(groupSpec, describer);
        double firstMs = (System.nanoTime() - started) / 1e6;
        double firstCpuMs = (processCpuNanos() - cpu) / 1e6;
        double firstThreadCpuMs = (threads.getCurrentThreadCpuTime() - threadCpu) / 1e6;

        String warm = timeCalls("warm", assignor, groupSpec, describer, runs);
        // The JVM is still compiling the hot paths after a handful of calls (C2 takes tens of calls of
        // this size, and on a crowded machine its compiler threads get little CPU), where V8 settles
        // sooner: calls go on unmeasured until the JIT has compiled nothing for QUIET_CALLS calls in a
        // row (or a budget of calls, CPU or wall time is spent), and N more are timed, as Kafka runs in
        // a coordinator up for hours.
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watchJit = jit != null && jit.isCompilationTimeMonitoringSupported();
        int settleCalls = 0;
        int quietCalls = 0;
        long settleStarted = System.nanoTime();
        long settleCpuStarted = processCpuNanos();
        long compiled = watchJit ? jit.getTotalCompilationTime() : 0;
        while ((quietCalls < QUIET_CALLS || settleCalls < MIN_SETTLE_CALLS)
            && settleCalls < SETTLE_CALLS
            && processCpuNanos() - settleCpuStarted < SETTLE_CPU_MS * 1_000_000L
            && System.nanoTime() - settleStarted < SETTLE_WALL_MS * 1_000_000L) {
            assignor.assign(groupSpec, describer);
            settleCalls++;
            long nowCompiled = watchJit ? jit.getTotalCompilationTime() : compiled + 1;
            quietCalls = nowCompiled == compiled ? quietCalls + 1 : 0;
            compiled = nowCompiled;
        }
        boolean jitQuiet = quietCalls >= QUIET_CALLS;
        // Three times as many settled calls as warm ones: on a shared machine one call in a few meets a
        // collection or a busy neighbour, and the median of more calls moves less from run to run.
        String settled = timeCalls("settled", assignor, groupSpec, describer, SETTLED_RUNS_PER_RUN * runs);

        writeResult(args[1], fileMembers, first, topicMetadata);
        System.out.println("{\"firstMs\":" + firstMs + ",\"firstCpuMs\":" + firstCpuMs + ",\"firstThreadCpuMs\":" + firstThreadCpuMs
            + "," + warm + "," + settled + ",\"settleCalls\":" + settleCalls + ",\"jitQuiet\":" + jitQuiet
            + ",\"java\":\"" + System.getProperty("java.version") + "\"}");
    }

    static final int QUIET_CALLS = 5;
    static final int SETTLE_CALLS = 300;
    /**
     * The uniform bench settles for at least this many calls even when the JIT looks quiet sooner: a
     * JVM that had compiled nothing for five calls after a handful still ran the next ones at several
     * times its later speed (a settled median of 33 ms in one run, 7-12 ms in others).
     */
    static final int MIN_SETTLE_CALLS = 50;
    static final int SETTLED_RUNS_PER_RUN = 3;
    static final long SETTLE_CPU_MS = 30_000;
    static final long SETTLE_WALL_MS = 120_000;

    /** Times `runs` calls: JSON fields "<name>Ms":[wall ms...],"<name>CpuMs":[process CPU ms...]. */
    static String timeCalls(String name, ConsumerGroupPartitionAssignor assignor, GroupSpecImpl groupSpec, SubscribedTopicDescriberImpl describer, int runs) {
        StringBuilder wall = new StringBuilder();
        StringBuilder cpu = new StringBuilder();
        for (int r = 0; r < runs; r++) {
            long cpuStarted = processCpuNanos();
            long started = System.nanoTime();
            assignor.assign(groupSpec, describer);
            double ms = (System.nanoTime() - started) / 1e6;
            double cpuMs = (processCpuNanos() - cpuStarted) / 1e6;
            wall.append(r == 0 ? "" : ",").append(ms);
            cpu.append(r == 0 ? "" : ",").append(cpuMs);
        }
        return "\"" + name + "Ms\":[" + wall + "],\"" + name + "CpuMs\":[" + cpu + "]";
    }

    static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    /** The first call's assignment in the group file's grammar (members without subscriptions). */
    static void writeResult(String file, List<FileMember> members, GroupAssignment assignment, Map<Uuid, TopicMetadata> topics) throws Exception {
        try (BufferedWriter out = Files.newBufferedWriter(Paths.get(file), StandardCharsets.UTF_8)) {
            out.write("cohort-assignor-group 1\n");
            for (FileMember member : members) {
                MemberAssignment target = assignment.members().get(member.memberId);
                Map<Uuid, Set<Integer>> partitions = target == null ? Collections.emptyMap() : target.partitions();
                StringBuilder line = new StringBuilder("member ").append(encode(member.memberId)).append(" 0 ").append(partitions.size());
                for (Map.Entry<Uuid, Set<Integer>> entry : partitions.entrySet()) {
                    TopicMetadata topic = topics.get(entry.getKey());
                    line.append(' ').append(topic == null ? entry.getKey().toString() : encode(topic.name())).append(' ').append(entry.getValue().size());
                    for (int partition : entry.getValue()) line.append(' ').append(partition);
                }
                out.write(line.append('\n').toString());
            }
        }
    }
}
