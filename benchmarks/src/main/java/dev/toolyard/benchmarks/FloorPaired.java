package dev.toolyard.benchmarks;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the default path's controls cost at their cheapest, against LangChain4j's {@code DefaultToolExecutor}
 * on the same call, in alternating blocks in one JVM as {@link CorePaired} runs them. Each floor adds one of
 * what every ToolYard call must do to the one before, written in the plainest JDK and Jackson code, with
 * none of the executor's structure:
 *
 * <ol>
 *   <li>parse: the arguments read into a tree and the one argument read from it, the constant answered
 *       (what any dispatcher does, LangChain4j included);</li>
 *   <li>+ digest: the record's SHA-256 of the arguments' UTF-8 bytes, in hex;</li>
 *   <li>+ id (3a): a random version-4 call id from a buffered strong generator, in text;</li>
 *   <li>+ clock (3): the start and end instants;</li>
 *   <li>+ record: a write-ahead entry put in a concurrent map before the handler and, after it, removed and
 *       a completion record queued (drained every 4,096 calls, as the benchmarks' store is).</li>
 * </ol>
 *
 * The schema check is left out of every floor (a closed one-property schema costs little at its
 * cheapest), so the last floor is below what the door does. Run with {@code java -cp
 * benchmarks/target/benchmarks.jar dev.toolyard.benchmarks.FloorPaired [blocks]} (default 2,000). A main
 * only; not thread-safe.
 */
public final class FloorPaired {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String OK = "ok";
    private static Object sink;

    private FloorPaired() {}

    /**
     * @param args optionally the number of blocks of each pair
     * @throws Exception if a peer cannot be built
     */
    public static void main(String[] args) throws Exception {
        int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        Method note = NoteTool.Peer.class.getMethod("note", String.class);
        DefaultToolExecutor langchain4j = new DefaultToolExecutor(new NoteTool.Peer(), note);
        ToolExecutionRequest peerRequest = ToolExecutionRequest.builder()
                .id("call-1").name(NoteTool.NAME).arguments(NoteTool.ARGUMENTS).build();
        InvocationContext peerContext = InvocationContext.builder().invocationId(UUID.randomUUID()).timestampNow().build();
        Runnable peer = () -> sink = langchain4j.executeWithContext(peerRequest, peerContext);
        Floor floor = new Floor();
        Path root = Workspace.create();
        ToolContext context = ToolContext.of("bench", SandboxPaths.of(root));
        ToolCallRequest request = ToolCallRequest.of(NoteTool.NAME, NoteTool.ARGUMENTS);
        try (ToolExecutor executor = ExecutorFixture.builder(NoteTool.cooperativeSpec(), NoteTool.HANDLER,
                new DrainedInMemoryStore()).build()) {
            CorePaired.pair("floor 1, parse, vs LangChain4j", () -> sink = floor.parse(NoteTool.ARGUMENTS), 200, peer, 200,
                    blocks);
            CorePaired.pair("floor 2, + digest, vs LangChain4j", () -> sink = floor.digest(NoteTool.ARGUMENTS), 200, peer,
                    200, blocks);
            CorePaired.pair("floor 3a, + id, vs LangChain4j", () -> sink = floor.id(NoteTool.ARGUMENTS), 200, peer, 200,
                    blocks);
            CorePaired.pair("floor 3, + id and clock, vs LangChain4j", () -> sink = floor.idAndClock(NoteTool.ARGUMENTS),
                    200, peer, 200, blocks);
            CorePaired.pair("floor 4, + write-ahead record, vs LangChain4j",
                    () -> sink = floor.recorded(NoteTool.ARGUMENTS), 200, peer, 200, blocks);
            CorePaired.pair("ToolYard execute, default, vs LangChain4j", () -> sink = executor.execute(request, context), 200,
                    peer, 200, blocks);
            CorePaired.pair("ToolYard execute vs floor 4", () -> sink = executor.execute(request, context), 200,
                    () -> sink = floor.recorded(NoteTool.ARGUMENTS), 200, blocks);
        } finally {
            Workspace.delete(root);
        }
    }

    /** The floors' state: one generator, one digest, one map of open calls and one queue of records. */
    static final class Floor {
        private final MessageDigest sha256;
        private final SecureRandom random;
        private final byte[] bits = new byte[16 * 64];
        private int at = bits.length;
        private final ConcurrentHashMap<String, Open> open = new ConcurrentHashMap<>();
        private final ConcurrentLinkedQueue<Done> done = new ConcurrentLinkedQueue<>();
        private int sinceDrain;

        Floor() throws NoSuchAlgorithmException {
            sha256 = MessageDigest.getInstance("SHA-256");
            random = SecureRandom.getInstance("DRBG");
        }

        String parse(String arguments) {
            JsonNode tree = MAPPER.readTree(arguments);
            return tree.get("text").asString().isEmpty() ? "empty" : OK;
        }

        String digest(String arguments) {
            String digest = HexFormat.of().formatHex(sha256.digest(arguments.getBytes(StandardCharsets.UTF_8)));
            return parse(arguments) == OK ? digest : OK;
        }

        Object id(String arguments) {
            String id = id();
            String digest = HexFormat.of().formatHex(sha256.digest(arguments.getBytes(StandardCharsets.UTF_8)));
            String answer = parse(arguments);
            return new Done(id, digest, null, null, answer);
        }

        Object idAndClock(String arguments) {
            Instant start = Instant.now();
            String id = id();
            String digest = HexFormat.of().formatHex(sha256.digest(arguments.getBytes(StandardCharsets.UTF_8)));
            String answer = parse(arguments);
            return new Done(id, digest, start, Instant.now(), answer);
        }

        Object recorded(String arguments) {
            Instant start = Instant.now();
            String id = id();
            String digest = HexFormat.of().formatHex(sha256.digest(arguments.getBytes(StandardCharsets.UTF_8)));
            open.put(id, new Open(id, digest, start));
            String answer = parse(arguments);
            Open o = open.remove(id);
            Done d = new Done(o.id, o.digest, o.start, Instant.now(), answer);
            done.add(d);
            if (++sinceDrain == 4_096) {
                sinceDrain = 0;
                done.clear();
            }
            return d;
        }

        private String id() {
            if (at == bits.length) {
                random.nextBytes(bits);
                at = 0;
            }
            bits[at + 6] = (byte) ((bits[at + 6] & 0x0f) | 0x40);
            bits[at + 8] = (byte) ((bits[at + 8] & 0x3f) | 0x80);
            long hi = 0;
            long lo = 0;
            for (int i = 0; i < 8; i++) {
                hi = (hi << 8) | (bits[at + i] & 0xFF);
                lo = (lo << 8) | (bits[at + 8 + i] & 0xFF);
            }
            at += 16;
            return new UUID(hi, lo).toString();
        }
    }

    private record Open(String id, String digest, Instant start) {}

    private record Done(String id, String digest, Instant start, Instant end, String answer) {}
}
