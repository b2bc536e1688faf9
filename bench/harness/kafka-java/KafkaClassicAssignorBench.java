// Times Kafka's own classic sticky assignors (StickyAssignor, CooperativeStickyAssignor, vendored in
// kafka/, see README.md) on groups written by the bench (bench/harness/assignor-group-file.ts), in a
// fresh JVM, the way the assignors bench times Cohort's: for each group in turn the first call, then N
// warm calls on the same group (so the second group's first call follows the first group's calls, as
// Cohort's first reassignment follows its fresh calls); then, for each group, calls go on unmeasured
// until the JIT has settled and N more are timed (see KafkaAssignorBench for why).
//
// The group is handed over as Kafka's consumer leader hands it to the assignor (a HashMap of
// subscriptions filled in the group's order): a member's "assignment" in the group file is what it
// owns, at generation 1, as the bench's reassignment input says; its user data is what its own
// assignor instance sends after receiving that assignment (onAssignment, then subscriptionUserData, the
// consumer's calls); a member that owns nothing sends what a new instance sends. The partitions are
// PartitionInfos without racks, as AbstractPartitionAssignor builds them from partition counts. Only
// assignPartitions() is timed, the call Kafka's own scale tests time; the user data buffers a call
// reads are rewound, untimed, before the next call, as each rebalance brings new ones.
//
// Usage: java KafkaClassicAssignorBench <sticky|cooperative-sticky> <warm runs> (<group file> <result file>)+
// Prints one JSON line: {"java","calls":[{"firstMs","firstCpuMs","firstThreadCpuMs","warmMs":[...],
// "warmCpuMs":[...],"settledMs":[...],"settledCpuMs":[...],"settleCalls","jitQuiet"}, ...]}, one per group.
// Each result file holds the first call's assignment of its group, members in the file's order, each
// member's partitions grouped by topic in the order Kafka's list first names them.
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.io.BufferedWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

public final class KafkaClassicAssignorBench {
    /** Members that own partitions come back at this generation (the bench's reassignment input's). */
    static final int OWNED_GENERATION = 1;
    static final Node[] NO_NODES = new Node[] {Node.noNode()};

    /** One group as the assignor is handed it, and the members in the file's order. */
    static final class Group {
        final Map<String, List<PartitionInfo>> partitionsPerTopic = new HashMap<>();
        final Map<String, Subscription> subscriptions = new HashMap<>();
        final List<String> memberIds = new ArrayList<>();
        final List<ByteBuffer> userData = new ArrayList<>();

        /** Every user data buffer back at its start: a call reads (consumes) them. */
        void rewind() {
            for (ByteBuffer buffer : userData) buffer.rewind();
        }
    }

    static Group readGroup(String file, Supplier<AbstractStickyAssignor> newAssignor) throws Exception {
        KafkaAssignorBench.Tokens in = new KafkaAssignorBench.Tokens(new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8));
        if (!in.word().equals("cohort-assignor-group") || in.number() != 1) throw new IllegalArgumentException("not a group file of version 1");
        Group group = new Group();
        while (in.more()) {
            String kind = in.word();
            if (kind.equals("topic")) {
                String topic = in.name();
                int count = in.number();
                List<PartitionInfo> partitions = new ArrayList<>(count);
                for (int p = 0; p < count; p++) partitions.add(new PartitionInfo(topic, p, Node.noNode(), NO_NODES, NO_NODES));
                group.partitionsPerTopic.put(topic, partitions);
            } else if (kind.equals("member")) {
                String memberId = in.name();
                List<String> topics = new ArrayList<>();
                for (int s = in.number(); s > 0; s--) topics.add(in.name());
                List<TopicPartition> owned = new ArrayList<>();
                for (int e = in.number(); e > 0; e--) {
                    String topic = in.name();
                    for (int p = in.number(); p > 0; p--) owned.add(new TopicPartition(topic, in.number()));
                }
                AbstractStickyAssignor own = newAssignor.get();
                int generation = owned.isEmpty() ? AbstractStickyAssignor.DEFAULT_GENERATION : OWNED_GENERATION;
                if (!owned.isEmpty())
                    own.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("bench", generation, memberId, Optional.empty()));
                ByteBuffer userData = own.subscriptionUserData(new HashSet<>(topics));
                if (userData != null) group.userData.add(userData);
                group.subscriptions.put(memberId, new Subscription(topics, userData, owned, generation, Optional.empty()));
                group.memberIds.add(memberId);
            } else {
                throw new IllegalArgumentException("unknown line kind " + kind);
            }
        }
        return group;
    }

    /** One call, timed: wall and process CPU, ns. */
    static long[] timed(AbstractStickyAssignor assignor, Group group, List<Map<String, List<TopicPartition>>> result) {
        group.rewind();
        long cpu = KafkaAssignorBench.processCpuNanos();
        long started = System.nanoTime();
        Map<String, List<TopicPartition>> assignment = assignor.assignPartitions(group.partitionsPerTopic, group.subscriptions);
        long wall = System.nanoTime() - started;
        long cpuUsed = KafkaAssignorBench.processCpuNanos() - cpu;
        if (result != null) result.add(assignment);
        return new long[] {wall, cpuUsed};
    }

    /** Times `runs` calls: JSON fields "<name>Ms":[wall ms...],"<name>CpuMs":[process CPU ms...]. */
    static String timeCalls(String name, AbstractStickyAssignor assignor, Group group, int runs) {
        StringBuilder wall = new StringBuilder();
        StringBuilder cpu = new StringBuilder();
        for (int r = 0; r < runs; r++) {
            long[] call = timed(assignor, group, null);
            wall.append(r == 0 ? "" : ",").append(call[0] / 1e6);
            cpu.append(r == 0 ? "" : ",").append(call[1] / 1e6);
        }
        return "\"" + name + "Ms\":[" + wall + "],\"" + name + "CpuMs\":[" + cpu + "]";
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4 || args.length % 2 != 0)
            throw new IllegalArgumentException("usage: KafkaClassicAssignorBench <sticky|cooperative-sticky> <warm runs> (<group file> <result file>)+");
        Supplier<AbstractStickyAssignor> newAssignor;
        if (args[0].equals("sticky")) newAssignor = StickyAssignor::new;
        else if (args[0].equals("cooperative-sticky")) newAssignor = CooperativeStickyAssignor::new;
        else throw new IllegalArgumentException("unknown assignor " + args[0]);
        int runs = Integer.parseInt(args[1]);
        List<Group> groups = new ArrayList<>();
        for (int a = 2; a < args.length; a += 2) groups.add(readGroup(args[a], newAssignor));

        // One instance for every call, as the consumer leader keeps one across rebalances.
        AbstractStickyAssignor assignor = newAssignor.get();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Map<String, List<TopicPartition>>> firsts = new ArrayList<>();
        List<StringBuilder> calls = new ArrayList<>();
        for (Group group : groups) {
            System.gc();
            long threadCpu = threads.getCurrentThreadCpuTime();
            long[] first = timed(assignor, group, firsts);
            double firstThreadCpuMs = (threads.getCurrentThreadCpuTime() - threadCpu) / 1e6;
            calls.add(new StringBuilder("{\"firstMs\":" + first[0] / 1e6 + ",\"firstCpuMs\":" + first[1] / 1e6
                + ",\"firstThreadCpuMs\":" + firstThreadCpuMs + "," + timeCalls("warm", assignor, group, runs)));
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watchJit = jit != null && jit.isCompilationTimeMonitoringSupported();
        for (int g = 0; g < groups.size(); g++) {
            Group group = groups.get(g);
            int settleCalls = 0;
            int quietCalls = 0;
            long settleStarted = System.nanoTime();
            long settleCpuStarted = KafkaAssignorBench.processCpuNanos();
            long compiled = watchJit ? jit.getTotalCompilationTime() : 0;
            while (quietCalls < KafkaAssignorBench.QUIET_CALLS
                && settleCalls < KafkaAssignorBench.SETTLE_CALLS
                && KafkaAssignorBench.processCpuNanos() - settleCpuStarted < KafkaAssignorBench.SETTLE_CPU_MS * 1_000_000L
                && System.nanoTime() - settleStarted < KafkaAssignorBench.SETTLE_WALL_MS * 1_000_000L) {
                timed(assignor, group, null);
                settleCalls++;
                long nowCompiled = watchJit ? jit.getTotalCompilationTime() : compiled + 1;
                quietCalls = nowCompiled == compiled ? quietCalls + 1 : 0;
                compiled = nowCompiled;
            }
            boolean jitQuiet = quietCalls >= KafkaAssignorBench.QUIET_CALLS;
            calls.get(g).append(",").append(timeCalls("settled", assignor, group, runs))
                .append(",\"settleCalls\":").append(settleCalls).append(",\"jitQuiet\":").append(jitQuiet).append("}");
        }
        for (int g = 0; g < groups.size(); g++) writeResult(args[3 + 2 * g], groups.get(g).memberIds, firsts.get(g));
        System.out.println("{\"java\":\"" + System.getProperty("java.version") + "\",\"calls\":[" + String.join(",", calls) + "]}");
    }

    /** The assignment in the group file's grammar (members without subscriptions), partitions grouped by topic. */
    static void writeResult(String file, List<String> memberIds, Map<String, List<TopicPartition>> assignment) throws Exception {
        try (BufferedWriter out = Files.newBufferedWriter(Paths.get(file), StandardCharsets.UTF_8)) {
            out.write("cohort-assignor-group 1\n");
            for (String memberId : memberIds) {
                Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
                for (TopicPartition tp : assignment.getOrDefault(memberId, List.of()))
                    byTopic.computeIfAbsent(tp.topic(), __ -> new ArrayList<>()).add(tp.partition());
                StringBuilder line = new StringBuilder("member ").append(KafkaAssignorBench.encode(memberId)).append(" 0 ").append(byTopic.size());
                for (Map.Entry<String, List<Integer>> entry : byTopic.entrySet()) {
                    line.append(' ').append(KafkaAssignorBench.encode(entry.getKey())).append(' ').append(entry.getValue().size());
                    for (int partition : entry.getValue()) line.append(' ').append(partition);
                }
                out.write(line.append('\n').toString());
            }
        }
    }
}
