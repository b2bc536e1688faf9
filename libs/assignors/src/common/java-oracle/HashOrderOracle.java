// Prints the iteration order of the real java.util.HashMap / HashSet, for the test that checks our
// emulation of it (java-order.oracle.spec.ts). Reads one case per line from stdin:
//   MAP <key>\t<key>...          -> the keys' input positions in HashMap iteration order
//   SET <op> <op> ...            -> ops "+topic/partition", "-topic/partition", "?" (print the first element)
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

public class HashOrderOracle {
    // Same hashCode and equals as org.apache.kafka.common.TopicPartition.
    static final class Tp {
        final String topic;
        final int partition;
        Tp(String topic, int partition) { this.topic = topic; this.partition = partition; }
        @Override public int hashCode() { return 31 * (31 + partition) + Objects.hashCode(topic); }
        @Override public boolean equals(Object o) {
            return o instanceof Tp && ((Tp) o).partition == partition && ((Tp) o).topic.equals(topic);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("MAP ")) {
                String[] keys = line.substring(4).split("\t", -1);
                Map<String, Integer> map = new HashMap<>();
                for (int i = 0; i < keys.length; i++) map.put(keys[i], i);
                List<String> order = new ArrayList<>();
                for (Integer position : map.values()) order.add(String.valueOf(position));
                out.append(String.join(" ", order)).append('\n');
            } else if (line.startsWith("SET ")) {
                Set<Tp> set = new HashSet<>();
                List<String> firsts = new ArrayList<>();
                for (String op : line.substring(4).split(" ")) {
                    if (op.equals("?")) {
                        firsts.add(set.isEmpty() ? "-" : set.iterator().next().topic + "/" + set.iterator().next().partition);
                        continue;
                    }
                    int slash = op.lastIndexOf('/');
                    Tp tp = new Tp(op.substring(1, slash), Integer.parseInt(op.substring(slash + 1)));
                    if (op.charAt(0) == '+') set.add(tp); else set.remove(tp);
                }
                out.append(String.join(" ", firsts)).append('\n');
            }
        }
        System.out.print(out);
    }
}
