package dev.toolyard.store.jdbc;

import dev.toolyard.InMemoryToolCallStore;
import dev.toolyard.spi.ToolCallStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rough measure, not a test: durable appends per second on an SQLite store with 1 and 8 appending
 * threads, next to the in-memory store. Arguments: seconds per run (default 5), directory (default a
 * temporary one). The benchmark module's JMH suite is the careful measure.
 */
public final class SqliteAppendThroughput {
    private SqliteAppendThroughput() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("toolyard-throughput");
        for (int threads : new int[] {1, 8}) {
            try (JdbcToolCallStore store = JdbcToolCallStore.sqlite(dir.resolve("t" + threads + ".db"))) {
                run(store, threads, 1, "warm-up");
                long before = store.transactions();
                long appends = run(store, threads, seconds, "sqlite");
                long transactions = store.transactions() - before;
                System.out.printf("sqlite    %d thread(s): %,10.0f durable appends/s  (%,d appends in %,d transactions,"
                        + " %.1f per commit)%n", threads, appends / seconds, appends, transactions,
                        (double) appends / transactions);
            }
            InMemoryToolCallStore memory = new InMemoryToolCallStore();
            run(memory, threads, 1, "warm-up");
            long appends = run(memory, threads, seconds, "memory");
            System.out.printf("in-memory %d thread(s): %,10.0f appends/s%n", threads, appends / seconds);
        }
    }

    private static long run(ToolCallStore store, int threads, double seconds, String tag) throws InterruptedException {
        AtomicLong count = new AtomicLong();
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread w = new Thread(() -> {
                for (long i = 0; System.nanoTime() < deadline; i++) {
                    store.append(TestRecords.ok(tag + "-" + thread + "-" + i + "-" + System.nanoTime(), "inv-" + thread,
                            "read_file"));
                    count.incrementAndGet();
                }
            });
            w.start();
            workers.add(w);
        }
        for (Thread w : workers) {
            w.join();
        }
        return count.get();
    }
}
