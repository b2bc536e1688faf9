// Prints the iteration order of a real java.util.HashMap after a sequence of operations, for the test
// that checks our emulation of it (java-hash-table.oracle.spec.ts). One case per line:
//   <initialCapacity or -> <op> <op> ...   ops: p<id>:<hash> (put), c<id>:<hash> (computeIfAbsent), r<id> (remove)
// Keys are distinct objects with the given hashCode; the output is the ids in iteration order.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class HashTableOracle {
    static final class Key {
        final int id;
        final int hash;
        Key(int id, int hash) { this.id = id; this.hash = hash; }
        @Override public int hashCode() { return hash; }
        @Override public boolean equals(Object o) { return o instanceof Key && ((Key) o).id == id; }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            String[] parts = line.split(" ");
            Map<Key, Integer> map = parts[0].equals("-") ? new HashMap<>() : new HashMap<>(Integer.parseInt(parts[0]));
            Map<Integer, Key> keys = new HashMap<>();
            for (int i = 1; i < parts.length; i++) {
                String op = parts[i];
                if (op.charAt(0) == 'r') {
                    map.remove(keys.get(Integer.parseInt(op.substring(1))));
                    continue;
                }
                String[] idHash = op.substring(1).split(":");
                int id = Integer.parseInt(idHash[0]);
                Key key = keys.computeIfAbsent(id, k -> new Key(k, Integer.parseInt(idHash[1])));
                if (op.charAt(0) == 'p') map.put(key, id);
                else map.computeIfAbsent(key, k -> k.id);
            }
            List<String> order = new ArrayList<>();
            for (Key key : map.keySet()) order.add(String.valueOf(key.id));
            out.append(String.join(" ", order)).append('\n');
        }
        System.out.print(out);
    }
}
