/**
 * The ports integrators implement: where paths are contained ({@link dev.toolyard.spi.PathPolicy}),
 * where commands run isolated ({@link dev.toolyard.spi.IsolatedRunner}, both together
 * {@link dev.toolyard.spi.Sandbox}), where calls are recorded ({@link dev.toolyard.spi.ToolCallStore},
 * {@link dev.toolyard.spi.ToolCallReader}) and who watches them ({@link dev.toolyard.spi.ToolCallObserver}).
 * Callers of the library need nothing from here; the API they use is {@code dev.toolyard}. Each type
 * carries a one-line stability note.
 */
package dev.toolyard.spi;
