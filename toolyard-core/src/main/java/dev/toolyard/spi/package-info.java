/**
 * The ports integrators implement: where paths are contained ({@link dev.toolyard.spi.PathPolicy}),
 * where commands run isolated ({@link dev.toolyard.spi.IsolatedRunner}, both together
 * {@link dev.toolyard.spi.Sandbox}), where calls are recorded ({@link dev.toolyard.spi.ToolCallStore},
 * {@link dev.toolyard.spi.ToolCallReader}) who watches them ({@link dev.toolyard.spi.ToolCallObserver}) and who approves a call before it runs
 * ({@link dev.toolyard.spi.ApprovalGate}, answering an {@link dev.toolyard.spi.ApprovalRequest} with an
 * {@link dev.toolyard.spi.ApprovalDecision}).
 * Callers of the library need nothing from here; the API they use is {@code dev.toolyard}. Each type
 * carries a one-line stability note.
 */
package dev.toolyard.spi;
