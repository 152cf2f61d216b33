package dev.toolyard.spi;

import dev.toolyard.ToolYardException;

/**
 * Thrown by {@link dev.toolyard.spi.IsolatedRunner#runIsolated} when the host has no isolation tier. ToolYard never runs a
 * command unisolated; the executor refuses tools that declare {@code requiresIsolation} before this
 * can happen, so seeing it means a handler reached for a subprocess without declaring it.
 */
public final class IsolationUnavailableException extends ToolYardException {
    private static final long serialVersionUID = 1L;

    /** @param message why no tier is available; never {@code null} */
    public IsolationUnavailableException(String message) {
        super(message);
    }
}
