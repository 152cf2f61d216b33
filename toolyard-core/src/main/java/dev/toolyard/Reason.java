package dev.toolyard;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Why a call did not end {@link ToolStatus#OK}: a snake_case wire name and the status it always comes
 * with. Two kinds:
 *
 * <ul>
 *   <li>the <b>core set</b>, the constants of this class: the executor's own reasons, the failures every
 *       handler can meet, and the reasons of the built-in tools as of version 1 (kept here so that their
 *       wire names and constants stay stable). Adding one is a minor version change of core;
 *   <li><b>tool-declared</b> reasons, made with {@link #declare} by a tool's own code (for example a
 *       built-in tool added later), so core does not change when a tool needs a new reason. They are as
 *       machine-readable as the core set: a wire name and a status, on the result and on the record.
 *       A declared reason is a value, held by whoever declared it, not an entry in a table of the
 *       process: a tool lists its reasons in its spec ({@link ToolSpec.Builder#reasons}), a
 *       {@link dev.toolyard.spi.PolicyGate} in {@link dev.toolyard.spi.PolicyGate#reasons()}, and the
 *       {@link ToolRegistry} (so every executor built on it) refuses a second meaning for one wire name,
 *       naming the tool and the reason, when the tool is registered or the executor is built.
 * </ul>
 *
 * Two reasons are equal when their wire names and statuses are; a core reason is always the constant,
 * so {@code ==} works for the core set. Immutable. Thread-safe.
 */
public final class Reason {
    private static final Pattern WIRE_NAME = Pattern.compile("^[a-z][a-z0-9_]{1,63}$");
    private static final Map<String, Reason> CORE = new java.util.LinkedHashMap<>();

    // Refusals by the executor. The order the executor checks them in is declared once, in Stage.
    /** No tool of that name is registered. */
    public static final Reason UNKNOWN_TOOL = core("UNKNOWN_TOOL", ToolStatus.REFUSED);
    /** The tool is outside the executor's allowlist; never re-approvable. */
    public static final Reason NOT_ALLOWLISTED = core("NOT_ALLOWLISTED", ToolStatus.REFUSED);
    /** The tool is allowlisted but outside this invocation's approved tools. */
    public static final Reason NOT_APPROVED = core("NOT_APPROVED", ToolStatus.REFUSED);
    /** The arguments are not valid JSON, too large, too deep, or fail the tool's schema. */
    public static final Reason ARGS_INVALID = core("ARGS_INVALID", ToolStatus.REFUSED);
    /** The tool's egress class is above the invocation's egress ceiling. */
    public static final Reason EGRESS_NOT_PERMITTED = core("EGRESS_NOT_PERMITTED", ToolStatus.REFUSED);
    /** The tool requires isolation and the host has no isolation tier. */
    public static final Reason ISOLATION_UNAVAILABLE = core("ISOLATION_UNAVAILABLE", ToolStatus.REFUSED);
    /** A path argument resolves outside the workspace, or is not a valid path. */
    public static final Reason PATH_ESCAPE = core("PATH_ESCAPE", ToolStatus.REFUSED);
    /**
     * The tool (or the executor) already holds as many running and abandoned handlers as its bound
     * allows; calls are accepted again as abandoned handlers return.
     */
    public static final Reason TOOL_SATURATED = core("TOOL_SATURATED", ToolStatus.REFUSED);

    // Refusals by http_fetch.
    /** The URL cannot be parsed. */
    public static final Reason MALFORMED_URL = core("MALFORMED_URL", ToolStatus.REFUSED);
    /** The URL's scheme is not http or https. */
    public static final Reason SCHEME_NOT_ALLOWED = core("SCHEME_NOT_ALLOWED", ToolStatus.REFUSED);
    /** The URL has no host. */
    public static final Reason NO_HOST = core("NO_HOST", ToolStatus.REFUSED);
    /** The host is not on the allowlist, or resolves to an address class that is never fetched. */
    public static final Reason HOST_NOT_ALLOWED = core("HOST_NOT_ALLOWED", ToolStatus.REFUSED);
    /** The host is, or resolves to, a link-local address (cloud metadata lives there). */
    public static final Reason LINK_LOCAL_ADDRESS = core("LINK_LOCAL_ADDRESS", ToolStatus.REFUSED);
    /**
     * {@code http_fetch} followed a redirect whose next hop is another host or scheme, and refused it: the
     * call is {@code REFUSED}. The one reason for a refused hop; not the same event as a ToolClad
     * {@code [http]} contract's envelope {@code "status": "redirect_blocked"}, which is no reason at all: a
     * contract never follows any redirect (same host included), so a 3xx is the server's answer, delivered
     * to the model with its {@code http_status} in ToolClad's envelope vocabulary (docs/contracts.md).
     */
    public static final Reason CROSS_HOST_REDIRECT = core("CROSS_HOST_REDIRECT", ToolStatus.REFUSED);
    /** More redirects than the cap. */
    public static final Reason TOO_MANY_REDIRECTS = core("TOO_MANY_REDIRECTS", ToolStatus.REFUSED);
    /** The response's content type is missing or not on the allowlist. */
    public static final Reason CONTENT_TYPE_NOT_ALLOWED = core("CONTENT_TYPE_NOT_ALLOWED", ToolStatus.REFUSED);
    /** The content is over the tool's cap; it was refused whole. */
    public static final Reason TOO_LARGE = core("TOO_LARGE", ToolStatus.REFUSED);

    // Failures.
    /** The handler threw; the detail carries the exception class only. */
    public static final Reason HANDLER_ERROR = core("HANDLER_ERROR", ToolStatus.FAILED);
    /** The network failed (connection refused, reset, timed out while connecting or reading). */
    public static final Reason TRANSPORT_ERROR = core("TRANSPORT_ERROR", ToolStatus.FAILED);
    /** The server answered with a non-2xx status. */
    public static final Reason HTTP_STATUS = core("HTTP_STATUS", ToolStatus.FAILED);
    /** The file does not exist. */
    public static final Reason FILE_NOT_FOUND = core("FILE_NOT_FOUND", ToolStatus.FAILED);
    /** The path is not a regular file (a directory, FIFO, device or socket). */
    public static final Reason NOT_A_REGULAR_FILE = core("NOT_A_REGULAR_FILE", ToolStatus.FAILED);
    /** The operating system refused access. */
    public static final Reason PERMISSION_DENIED = core("PERMISSION_DENIED", ToolStatus.FAILED);
    /** The file is not valid UTF-8. */
    public static final Reason NOT_UTF8 = core("NOT_UTF8", ToolStatus.FAILED);

    /** The call ran past its deadline; the detail states elapsed time against the limit. */
    public static final Reason TIMEOUT = core("TIMEOUT", ToolStatus.TIMEOUT);

    // Refusals of rounds, budgets and the approval gate (added after version 1, so they come last in
    // values(); where they stand in the walk is Stage's to say).
    /** The call came past {@code maxCallsPerRound} in one round; it was never looked up; retry with fewer calls. */
    public static final Reason ROUND_LIMIT = core("ROUND_LIMIT", ToolStatus.REFUSED);
    /** The invocation has used its call budget or its wall-clock budget. */
    public static final Reason BUDGET_EXHAUSTED = core("BUDGET_EXHAUSTED", ToolStatus.REFUSED);
    /** The approval gate denied the call, failed, answered {@code null}, or no gate is configured. */
    public static final Reason APPROVAL_DENIED = core("APPROVAL_DENIED", ToolStatus.REFUSED);
    /** The approval gate did not answer within the executor's approval timeout. */
    public static final Reason APPROVAL_TIMEOUT = core("APPROVAL_TIMEOUT", ToolStatus.REFUSED);

    private final String name;
    private final String wireName;
    private final ToolStatus status;
    private final boolean core;

    private Reason(String name, String wireName, ToolStatus status, boolean core) {
        this.name = name;
        this.wireName = wireName;
        this.status = status;
        this.core = core;
    }

    private static Reason core(String name, ToolStatus status) {
        Reason r = new Reason(name, name.toLowerCase(Locale.ROOT), status, true);
        CORE.put(r.wireName, r);
        return r;
    }

    /**
     * Makes a reason of a tool's own, for {@link ToolOutput#refused} or {@link ToolOutput#failed}. Nothing
     * is registered: the reason is a value, equal to any other declaration of the same name and status
     * (the core constant, for a core name), so tools may declare it in a static field. List it in the
     * tool's spec ({@link ToolSpec.Builder#reasons}) so its registry checks that no other tool of that
     * registry gives the name another status.
     *
     * @param wireName the snake_case wire name, matching {@code ^[a-z][a-z0-9_]{1,63}$}; never {@code null}
     * @param status {@link ToolStatus#REFUSED} or {@link ToolStatus#FAILED}; never {@code null}
     * @return the reason
     * @throws IllegalArgumentException if the name is malformed, the status is another, or the name is
     *     a core reason with another status
     */
    public static Reason declare(String wireName, ToolStatus status) {
        Objects.requireNonNull(wireName, "wireName");
        Objects.requireNonNull(status, "status");
        if (!WIRE_NAME.matcher(wireName).matches()) {
            throw new IllegalArgumentException("wireName must match ^[a-z][a-z0-9_]{1,63}$, got '"
                    + (wireName.length() > 80 ? wireName.substring(0, 80) + "…" : wireName) + "'");
        }
        if (status != ToolStatus.REFUSED && status != ToolStatus.FAILED) {
            throw new IllegalArgumentException("a tool's reason comes with REFUSED or FAILED, not " + status);
        }
        Reason known = CORE.get(wireName);
        if (known == null) {
            return new Reason(wireName.toUpperCase(Locale.ROOT), wireName, status, false);
        }
        if (known.status != status) {
            throw new IllegalArgumentException("reason " + wireName + " already comes with status " + known.status
                    + ", not " + status);
        }
        return known;
    }

    /** @return the snake_case wire name, for example {@code path_escape}; never {@code null} */
    public String wireName() {
        return wireName;
    }

    /** @return the status this reason always comes with; never {@code null} */
    public ToolStatus status() {
        return status;
    }

    /** @return whether this is a constant of the core set rather than a tool-declared reason */
    public boolean isCore() {
        return core;
    }

    /** @return the wire name in upper case, as the constant is named (for example {@code PATH_ESCAPE}) */
    public String name() {
        return name;
    }

    /** @return the core set, in the order declared here; a new array each time */
    public static Reason[] values() {
        return CORE.values().toArray(new Reason[0]);
    }

    /**
     * @param wireName a value of {@link #wireName()} of the core set (a tool's own reason has no process-wide
     *     table to be looked up in: read it back with {@link #fromRecord}, which takes its status too)
     * @return the core reason with that wire name
     * @throws IllegalArgumentException if no core reason has that name
     */
    public static Reason fromWireName(String wireName) {
        Reason r = CORE.get(wireName);
        if (r == null) {
            throw new IllegalArgumentException("unknown reason wire name: " + wireName);
        }
        return r;
    }

    /**
     * A reason read back from a record, whose tool may not be loaded in this JVM (a CLI reading a store,
     * say): the core constant for a core name, otherwise the tool-declared reason, equal to the one its
     * tool declared.
     *
     * @param wireName the recorded wire name; never {@code null}
     * @param status the recorded status; never {@code null}
     * @return the reason
     * @throws IllegalArgumentException if the name is malformed or a known reason of that name comes with
     *     another status
     */
    public static Reason fromRecord(String wireName, ToolStatus status) {
        Reason known = CORE.get(wireName);
        if (known == null) {
            if (!WIRE_NAME.matcher(wireName).matches() || status == ToolStatus.OK || status == ToolStatus.INTERRUPTED) {
                throw new IllegalArgumentException("not a reason: " + wireName + " with status " + status);
            }
            return new Reason(wireName.toUpperCase(Locale.ROOT), wireName, status, false);
        }
        if (known.status != status) {
            throw new IllegalArgumentException("reason " + wireName + " comes with status " + known.status
                    + ", not " + status);
        }
        return known;
    }

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Reason r && wireName.equals(r.wireName) && status == r.status;
    }

    @Override
    public int hashCode() {
        return wireName.hashCode() * 31 + status.hashCode();
    }

    /** @return the name in upper case, as an enum constant prints (this class was an enum in version 1) */
    @Override
    public String toString() {
        return name;
    }
}
