package dev.toolyard.benchmarks;

import dev.toolyard.PathContainment;
import dev.toolyard.spi.PathDecision;
import dev.toolyard.SandboxPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Row 5: {@link PathContainment#resolveRead} of {@code sub/../notes.md} and of a symbolic link
 * ({@code linked.md -> notes.md}), each beside a bare {@link Path#toRealPath} of the same path made
 * absolute once in set-up: the kernel's share, which no containment can go below.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class PathContainmentBenchmark {
    static final String DOT_DOT = "sub/../notes.md";
    static final String LINKED = "linked.md";

    private Path root;
    private SandboxPaths workspace;
    private PathContainment containment;
    private Path dotDotPath;
    private Path linkedPath;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        root = Workspace.create().toRealPath();
        Files.createDirectory(root.resolve("sub"));
        Files.writeString(root.resolve("notes.md"), "milk\n");
        Files.createSymbolicLink(root.resolve(LINKED), Paths.get("notes.md"));
        workspace = SandboxPaths.of(root);
        containment = new PathContainment();
        dotDotPath = root.resolve(DOT_DOT);
        linkedPath = root.resolve(LINKED);
        Path notes = root.resolve("notes.md");
        if (!containment.resolveRead(DOT_DOT, workspace).path().equals(notes)
                || !containment.resolveRead(LINKED, workspace).path().equals(notes)
                || !dotDotPath.toRealPath().equals(notes) || !linkedPath.toRealPath().equals(notes)) {
            throw new IllegalStateException("the paths do not resolve to " + notes);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Workspace.delete(root);
    }

    @Benchmark
    public PathDecision resolveReadDotDot() {
        return containment.resolveRead(DOT_DOT, workspace);
    }

    @Benchmark
    public Path toRealPathDotDot() throws IOException {
        return dotDotPath.toRealPath();
    }

    @Benchmark
    public PathDecision resolveReadSymlink() {
        return containment.resolveRead(LINKED, workspace);
    }

    @Benchmark
    public Path toRealPathSymlink() throws IOException {
        return linkedPath.toRealPath();
    }
}
