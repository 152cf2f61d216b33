package dev.toolyard.builtins.internal;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What one call's command did on the network, for its record: one entry per distinct destination and
 * outcome (host, port, address, reached or the refusal), each with its connection count and bytes each
 * way. Bounded: after {@code maxEntries} distinct entries, further destinations are only counted
 * ({@code more_connections}, {@code more_bytes_*}), so a command opening thousands of connections
 * leaves a record of fixed size. Thread-safe (every connection of the call reports here).
 */
final class NetworkLog {
    /** The outcome word of a connection that reached its destination. */
    static final String REACHED = "reached";

    private final int maxEntries;
    private final Map<Key, long[]> entries = new LinkedHashMap<>();
    private long connections;
    private long refused;
    private long bytesUp;
    private long bytesDown;
    private long moreConnections;
    private long moreBytesUp;
    private long moreBytesDown;

    NetworkLog(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    private record Key(String host, int port, String address, String outcome) {}

    /** One connection's place in the log, to which its bytes are added as they move. */
    final class Entry {
        private final long[] counters;

        private Entry(long[] counters) {
            this.counters = counters;
        }

        void up(long n) {
            synchronized (NetworkLog.this) {
                bytesUp += n;
                if (counters == null) {
                    moreBytesUp += n;
                } else {
                    counters[1] += n;
                }
            }
        }

        void down(long n) {
            synchronized (NetworkLog.this) {
                bytesDown += n;
                if (counters == null) {
                    moreBytesDown += n;
                } else {
                    counters[2] += n;
                }
            }
        }
    }

    /**
     * Counts one connection.
     *
     * @param host the host asked for, as checked
     * @param port the port asked for
     * @param address the address reached or refused; {@code null} when none was involved
     * @param outcome {@link #REACHED} or a refusal's wire word
     * @return where its bytes go
     */
    synchronized Entry connection(String host, int port, InetAddress address, String outcome) {
        connections++;
        if (!REACHED.equals(outcome)) {
            refused++;
        }
        Key key = new Key(host, port, address == null ? "" : address.getHostAddress(), outcome);
        long[] counters = entries.get(key);
        if (counters == null && entries.size() < maxEntries) {
            counters = new long[3];
            entries.put(key, counters);
        }
        if (counters == null) {
            moreConnections++;
        } else {
            counters[0]++;
        }
        return new Entry(counters);
    }

    /** @return how many connections the command opened to the proxy, refused ones included */
    synchronized long connections() {
        return connections;
    }

    /** @return the log as one JSON object, in a stable order: totals first, then the entries as they came */
    synchronized String toJson() {
        StringBuilder b = new StringBuilder(128 + entries.size() * 96);
        b.append("{\"connections\":").append(connections).append(",\"refused\":").append(refused)
                .append(",\"bytes_up\":").append(bytesUp).append(",\"bytes_down\":").append(bytesDown)
                .append(",\"destinations\":[");
        boolean first = true;
        for (Map.Entry<Key, long[]> e : entries.entrySet()) {
            Key k = e.getKey();
            long[] c = e.getValue();
            b.append(first ? "" : ",").append("{\"host\":").append(quote(k.host())).append(",\"port\":").append(k.port())
                    .append(",\"address\":").append(quote(k.address())).append(",\"outcome\":").append(quote(k.outcome()))
                    .append(",\"connections\":").append(c[0]).append(",\"bytes_up\":").append(c[1])
                    .append(",\"bytes_down\":").append(c[2]).append('}');
            first = false;
        }
        b.append(']');
        if (moreConnections > 0) {
            b.append(",\"more_connections\":").append(moreConnections).append(",\"more_bytes_up\":").append(moreBytesUp)
                    .append(",\"more_bytes_down\":").append(moreBytesDown);
        }
        return b.append('}').toString();
    }

    /** @return one line per entry, for the model's output: {@code reached pypi.test:443 (127.0.0.1) up 512 down 2048} */
    synchronized List<String> lines() {
        List<String> out = entries.entrySet().stream().map(e -> e.getKey().outcome() + " " + e.getKey().host() + ":"
                + e.getKey().port() + (e.getKey().address().isEmpty() ? "" : " (" + e.getKey().address() + ")")
                + " x" + e.getValue()[0] + " up " + e.getValue()[1] + " down " + e.getValue()[2])
                .collect(Collectors.toCollection(java.util.ArrayList::new));
        if (moreConnections > 0) {
            out.add("... " + moreConnections + " more connections, up " + moreBytesUp + " down " + moreBytesDown);
        }
        return out;
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c >= 0x7f) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
