package dev.toolyard;

import java.util.Locale;

/**
 * Why a call did not end {@link ToolStatus#OK}: one closed set, each reason with its snake_case wire
 * name and the status it always comes with. Adding a reason is a minor version change.
 */
public enum Reason {
    // Refusals by the executor, in the order its checks run.
    /** No tool of that name is registered. */
    UNKNOWN_TOOL(ToolStatus.REFUSED),
    /** The tool is outside the executor's allowlist; never re-approvable. */
    NOT_ALLOWLISTED(ToolStatus.REFUSED),
    /** The tool is allowlisted but outside this invocation's approved tools. */
    NOT_APPROVED(ToolStatus.REFUSED),
    /** The arguments are not valid JSON, too large, too deep, or fail the tool's schema. */
    ARGS_INVALID(ToolStatus.REFUSED),
    /** The tool's egress class is above the invocation's egress ceiling. */
    EGRESS_NOT_PERMITTED(ToolStatus.REFUSED),
    /** The tool requires isolation and the host has no isolation tier. */
    ISOLATION_UNAVAILABLE(ToolStatus.REFUSED),
    /** A path argument resolves outside the workspace, or is not a valid path. */
    PATH_ESCAPE(ToolStatus.REFUSED),

    // Refusals by http_fetch.
    /** The URL cannot be parsed. */
    MALFORMED_URL(ToolStatus.REFUSED),
    /** The URL's scheme is not http or https. */
    SCHEME_NOT_ALLOWED(ToolStatus.REFUSED),
    /** The URL has no host. */
    NO_HOST(ToolStatus.REFUSED),
    /** The host is not on the allowlist, or resolves to an address class that is never fetched. */
    HOST_NOT_ALLOWED(ToolStatus.REFUSED),
    /** The host is, or resolves to, a link-local address (cloud metadata lives there). */
    LINK_LOCAL_ADDRESS(ToolStatus.REFUSED),
    /** A redirect pointed to another host or scheme. */
    CROSS_HOST_REDIRECT(ToolStatus.REFUSED),
    /** More redirects than the cap. */
    TOO_MANY_REDIRECTS(ToolStatus.REFUSED),
    /** The response's content type is missing or not on the allowlist. */
    CONTENT_TYPE_NOT_ALLOWED(ToolStatus.REFUSED),
    /** The content is over the tool's cap; it was refused whole. */
    TOO_LARGE(ToolStatus.REFUSED),

    // Failures.
    /** The handler threw; the detail carries the exception class only. */
    HANDLER_ERROR(ToolStatus.FAILED),
    /** The network failed (connection refused, reset, timed out while connecting or reading). */
    TRANSPORT_ERROR(ToolStatus.FAILED),
    /** The server answered with a non-2xx status. */
    HTTP_STATUS(ToolStatus.FAILED),
    /** The file does not exist. */
    FILE_NOT_FOUND(ToolStatus.FAILED),
    /** The path is not a regular file (a directory, FIFO, device or socket). */
    NOT_A_REGULAR_FILE(ToolStatus.FAILED),
    /** The operating system refused access. */
    PERMISSION_DENIED(ToolStatus.FAILED),
    /** The file is not valid UTF-8. */
    NOT_UTF8(ToolStatus.FAILED),

    /** The call ran past its deadline; the detail states elapsed time against the limit. */
    TIMEOUT(ToolStatus.TIMEOUT);

    private final ToolStatus status;
    private final String wireName;

    Reason(ToolStatus status) {
        this.status = status;
        this.wireName = name().toLowerCase(Locale.ROOT);
    }

    /** @return the snake_case wire name, for example {@code path_escape}; never {@code null} */
    public String wireName() {
        return wireName;
    }

    /** @return the status this reason always comes with; never {@code null} */
    public ToolStatus status() {
        return status;
    }

    /**
     * @param wireName a value of {@link #wireName()}
     * @return the reason with that wire name
     * @throws IllegalArgumentException if no reason has that wire name
     */
    public static Reason fromWireName(String wireName) {
        for (Reason r : values()) {
            if (r.wireName.equals(wireName)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown reason wire name: " + wireName);
    }
}
