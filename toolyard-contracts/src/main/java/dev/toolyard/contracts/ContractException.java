package dev.toolyard.contracts;

import dev.toolyard.ModuleException;

/**
 * A manifest, scope file or {@code toolclad.toml} that cannot be used: bad application configuration,
 * thrown at load or bind time with the file and the key named, for example
 * {@code "whois.clad.toml: [tool] timeout_seconds must be at least 1, got 0"}. Never thrown for what a
 * model sends: that comes back as a {@code ToolResult}.
 */
public final class ContractException extends ModuleException {
    private static final long serialVersionUID = 1L;

    /** @param message the file, the key and what is wrong; never {@code null} */
    public ContractException(String message) {
        super(message);
    }
}
