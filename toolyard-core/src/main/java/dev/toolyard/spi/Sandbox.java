package dev.toolyard.spi;

/**
 * Both halves of containment in one object: the path policy and the isolated runner.
 * {@code TieredSandbox} in {@code toolyard-sandbox} is one; {@link dev.toolyard.PathContainment} is only
 * the path half. Give a {@code Sandbox} to {@link dev.toolyard.ToolExecutor#builder} and the executor
 * refuses isolated tools by its tier. Implementations are thread-safe.
 *
 * <p>Stability: stable.
 */
public interface Sandbox extends PathPolicy, IsolatedRunner {}
