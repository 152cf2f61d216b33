package dev.toolyard.builtins;

import dev.toolyard.spi.IsolatedRunner;
import dev.toolyard.Tool;
import dev.toolyard.builtins.internal.HttpFetch;
import java.util.List;
import java.util.Map;
import javax.net.SocketFactory;

/**
 * The built-in tools, each a spec and its handler for {@link dev.toolyard.ToolRegistry#register(Tool)}.
 * Register only the ones an application means to offer:
 *
 * <pre>{@code
 * registry.register(BuiltinTools.readFile());
 * registry.register(BuiltinTools.writeFile());
 * registry.register(BuiltinTools.listDir());
 * }</pre>
 *
 * <p>Every schema is closed. Path arguments are declared as such, so the executor resolves and
 * contains them before a handler runs; the handlers then walk the resolved path from its root without
 * following a symbolic link, so a link swapped in after the check is refused rather than followed.
 * A factory without arguments returns the same {@link Tool} each time, so registering it twice is a
 * no-op. Thread-safe; the tools are stateless and immutable.
 */
public final class BuiltinTools {
    /** Default cap of {@code read_file}: 1 MiB. A larger file is refused whole ({@code too_large}). */
    static final long DEFAULT_READ_FILE_MAX_BYTES = ReadFileTool.DEFAULT_MAX_BYTES;
    /** Default cap of {@code write_file} on the content, in UTF-8 bytes: 1 MiB. */
    static final long DEFAULT_WRITE_FILE_MAX_BYTES = WriteFileTool.DEFAULT_MAX_BYTES;
    /** Smallest byte cap {@code read_file} and {@code write_file} accept: 1 KiB. */
    static final long MIN_FILE_MAX_BYTES = 1024;
    /** Largest byte cap {@code read_file} and {@code write_file} accept: 1 GiB (files are held in memory). */
    static final long MAX_FILE_MAX_BYTES = 1L << 30;
    /** Default cap of {@code list_dir}: 1,000 entries shown; the rest are counted in an "omitted" line. */
    static final int DEFAULT_LIST_DIR_MAX_ENTRIES = ListDirTool.DEFAULT_MAX_ENTRIES;

    private static final Tool READ_FILE = ReadFileTool.create(DEFAULT_READ_FILE_MAX_BYTES);
    private static final Tool WRITE_FILE = WriteFileTool.create(DEFAULT_WRITE_FILE_MAX_BYTES);
    private static final Tool LIST_DIR = ListDirTool.create(DEFAULT_LIST_DIR_MAX_ENTRIES);

    private BuiltinTools() {}

    /**
     * {@code read_file} with the default cap of 1 MiB.
     *
     * @return the tool, never {@code null}; the same instance on every call
     * @see #readFile(long)
     */
    public static Tool readFile() {
        return READ_FILE;
    }

    /**
     * {@code read_file}: returns the text of one UTF-8 file inside a read root or the write root.
     * Arguments {@code {"path": string}}. Reasons: {@code path_escape}, {@code file_not_found},
     * {@code not_a_regular_file}, {@code permission_denied}, {@code not_utf8}, {@code too_large}.
     * Risk {@code READ_ONLY}, egress {@code NONE}.
     *
     * @param maxBytes the largest file read, in bytes; a larger one is refused whole
     * @return a new tool; never {@code null}
     * @throws IllegalArgumentException if {@code maxBytes} is below 1,024 or above 1 GiB
     */
    public static Tool readFile(long maxBytes) {
        return ReadFileTool.create(checkBytes(maxBytes));
    }

    /**
     * {@code write_file} with the default cap of 1 MiB.
     *
     * @return the tool, never {@code null}; the same instance on every call
     * @see #writeFile(long)
     */
    public static Tool writeFile() {
        return WRITE_FILE;
    }

    /**
     * {@code write_file}: writes one text file inside the write root, whole and atomically, creating
     * missing parent directories inside the root. Arguments {@code {"path": string, "content":
     * string}}. Reasons: {@code path_escape}, {@code args_invalid}, {@code too_large},
     * {@code file_not_found}, {@code not_a_regular_file}, {@code permission_denied}. Risk
     * {@code WRITE}, egress {@code NONE}.
     *
     * @param maxBytes the largest content written, in UTF-8 bytes; larger content is refused whole
     * @return a new tool; never {@code null}
     * @throws IllegalArgumentException if {@code maxBytes} is below 1,024 or above 1 GiB
     */
    public static Tool writeFile(long maxBytes) {
        return WriteFileTool.create(checkBytes(maxBytes));
    }

    /**
     * {@code list_dir} with the default cap of 1,000 entries.
     *
     * @return the tool, never {@code null}; the same instance on every call
     * @see #listDir(int)
     */
    public static Tool listDir() {
        return LIST_DIR;
    }

    /**
     * {@code list_dir}: lists one directory inside a read root or the write root, sorted by name, each
     * entry marked {@code file}, {@code dir}, {@code link} or {@code other}; links are listed, never
     * followed. Arguments {@code {"path": string}}. Reasons: {@code path_escape},
     * {@code file_not_found}, {@code not_a_regular_file} (here: not a directory),
     * {@code permission_denied}. Risk {@code READ_ONLY}, egress {@code NONE}.
     *
     * @param maxEntries the most entries shown; the rest are counted in a last "omitted" line
     * @return a new tool; never {@code null}
     * @throws IllegalArgumentException if {@code maxEntries} is not positive
     */
    public static Tool listDir(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
        }
        return ListDirTool.create(maxEntries);
    }

    /**
     * {@code run_command}: one command as an argv list, run through the sandbox's isolation tier in the
     * write root, with the environment {@code PATH=/usr/local/bin:/usr/bin:/bin} and nothing else. It
     * declares {@code requiresIsolation}, so the executor refuses it on a host with no tier. Pass the
     * executor's own sandbox.
     *
     * @param sandbox the sandbox the executor was built with; never {@code null}
     * @return the tool
     */
    public static Tool runCommand(IsolatedRunner sandbox) {
        return RunCommandTool.create(sandbox, RunCommandTool.DEFAULT_ENV);
    }

    /**
     * {@code run_command} with an explicit environment instead of the default {@code PATH}.
     *
     * @param sandbox the sandbox the executor was built with; never {@code null}
     * @param environment the whole environment the command sees (an allowlist; the parent's is never
     *     inherited); never {@code null}
     * @return the tool
     * @throws IllegalArgumentException if a name is empty or holds {@code =} or NUL, or a value holds NUL
     */
    public static Tool runCommand(IsolatedRunner sandbox, Map<String, String> environment) {
        return RunCommandTool.create(sandbox, environment);
    }

    /**
     * {@code run_command} with network to the hosts {@code network} allows, and the default environment
     * {@code PATH=/usr/local/bin:/usr/bin:/bin} plus the proxy variables (see
     * {@link #runCommand(IsolatedRunner, Map, CommandNetwork)}). Egress {@link dev.toolyard.EgressClass#ALLOWLISTED}.
     *
     * @param sandbox the sandbox the executor was built with; never {@code null}
     * @param network the hosts and limits; never {@code null}
     * @return the tool
     */
    public static Tool runCommand(IsolatedRunner sandbox, CommandNetwork network) {
        return RunCommandTool.create(sandbox, RunCommandTool.DEFAULT_ENV, network);
    }

    /**
     * {@code run_command} with network: the command's sandbox keeps its own network namespace with
     * loopback only, and reaches the hosts {@code network} allows through an allowlisting proxy in this
     * JVM (docs/isolation.md, "Network for commands"). Egress {@link dev.toolyard.EgressClass#ALLOWLISTED},
     * so the invocation's egress ceiling must permit it. The command's environment is {@code environment}
     * plus the variables tools read to find a proxy, all naming the relay on {@code 127.0.0.1}:
     * {@code HTTP_PROXY}, {@code HTTPS_PROXY} and their lower-case forms, {@code NO_PROXY} (loopback only),
     * npm's, yarn's and pip's own, git's {@code http.proxy} (through {@code GIT_CONFIG_*}) and the JVM's
     * proxy properties in {@code JAVA_TOOL_OPTIONS} (appended to one the application set). When the
     * sandbox cannot route network on this host ({@link IsolatedRunner#proxyRouteUnavailable()}), calls
     * are refused {@code isolation_unavailable} with why. Each call's output and record list the
     * destinations reached or refused, with bytes each way.
     *
     * @param sandbox the sandbox the executor was built with; never {@code null}
     * @param environment the application's environment allowlist, as {@link #runCommand(IsolatedRunner, Map)}
     * @param network the hosts and limits; never {@code null}
     * @return the tool
     * @throws IllegalArgumentException if an environment entry is invalid, or sets a proxy variable other
     *     than {@code JAVA_TOOL_OPTIONS} (the proxy's own value would silently replace it)
     */
    public static Tool runCommand(IsolatedRunner sandbox, Map<String, String> environment, CommandNetwork network) {
        return RunCommandTool.create(sandbox, environment, network);
    }

    /**
     * {@code http_fetch} with the default {@link FetchLimits}. See
     * {@link #httpFetch(List, Resolver, FetchLimits, SocketFactory)}.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver) {
        return httpFetch(allowedHosts, resolver, FetchLimits.defaults());
    }

    /**
     * {@code http_fetch} with the given caps. See {@link #httpFetch(List, Resolver, FetchLimits, SocketFactory)}.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default
     * @param limits body, redirect and timeout caps; never {@code null}
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is invalid
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver, FetchLimits limits) {
        return httpFetch(allowedHosts, resolver, limits, SocketFactory.getDefault());
    }

    /**
     * {@code http_fetch}: GET one {@code http} or {@code https} URL from an allowlisted host and return its
     * body as text. Schema {@code {"url": string, 1-2,048 characters}}, closed; risk
     * {@link dev.toolyard.RiskClass#READ_ONLY}; egress {@link dev.toolyard.EgressClass#ALLOWLISTED}.
     *
     * <p>{@code allowedHosts} entries are host names (internationalised names allowed), dotted quads and
     * IPv6 literals; each is normalised once (lower case, IDNA to ASCII) and compared exactly with the
     * URL's host as OkHttp parses it. An empty list admits loopback only ({@code localhost}, 127.0.0.0/8,
     * {@code ::1}). A name reaching a loopback or private address is fetched only if that address is on
     * the list too; link-local, unspecified, multicast and broadcast addresses never are. The full policy
     * is in {@code docs/security-egress.md}. Refusals never list the allowlist.
     *
     * <p>{@code socketFactory} creates every socket the tool opens (TLS is layered on top of it). The
     * two shorter overloads use {@link SocketFactory#getDefault()}. Pass another to bind to an interface,
     * or, in tests, to refuse any connect that is not to loopback, so that no test can send a packet off
     * the machine even if a check were broken. The factory only ever sees addresses that passed the checks.
     *
     * @param allowedHosts the hosts that may be fetched; never {@code null}; empty means loopback only
     * @param resolver resolves allowlisted host names; never {@code null}; there is no default (an
     *     explicit {@link Resolver#system()} is fine)
     * @param limits body, redirect and timeout caps; never {@code null}
     * @param socketFactory creates every plain socket; never {@code null}; not an SSL socket factory
     * @return the tool
     * @throws NullPointerException if an argument or an entry of {@code allowedHosts} is {@code null}
     * @throws IllegalArgumentException naming {@code allowedHosts[i]} if an entry is not a bare host, is
     *     ambiguous between IDNA 2003 and UTS #46, or is a link-local, unspecified, multicast or broadcast
     *     address; or if {@code socketFactory} is an SSL socket factory
     */
    public static Tool httpFetch(List<String> allowedHosts, Resolver resolver, FetchLimits limits,
            SocketFactory socketFactory) {
        return HttpFetch.tool(allowedHosts, resolver, limits, socketFactory);
    }

    private static long checkBytes(long maxBytes) {
        if (maxBytes < MIN_FILE_MAX_BYTES || maxBytes > MAX_FILE_MAX_BYTES) {
            throw new IllegalArgumentException("maxBytes must be between " + MIN_FILE_MAX_BYTES + " and "
                    + MAX_FILE_MAX_BYTES + ", got " + maxBytes);
        }
        return maxBytes;
    }
}
