package dev.toolyard.builtins;

import dev.toolyard.SandboxPaths;
import dev.toolyard.builtins.internal.CommandProxy;
import dev.toolyard.spi.IsolatedRunner;
import dev.toolyard.spi.IsolationUnavailableException;
import dev.toolyard.spi.ProxyRoute;
import dev.toolyard.spi.SubprocessResult;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.SocketFactory;
import javax.net.ssl.SSLSocketFactory;

/**
 * Network for a sandboxed command ({@link BuiltinTools#runCommand(dev.toolyard.spi.IsolatedRunner,
 * CommandNetwork)}): the hosts and ports it may reach, through an allowlisting HTTP proxy in this JVM
 * that the sandbox reaches through a unix socket. The sandbox keeps its own network namespace with
 * loopback only; a relay inside listens on {@code 127.0.0.1:}{@link #loopbackPort()} before the command
 * starts, and the command's proxy variables point there.
 *
 * <p>Entries ({@code hosts}): a host name ({@code pypi.test}), a suffix name ({@code *.example.test}:
 * every name ending in {@code .example.test}, not {@code example.test} itself), a dotted quad or an
 * IPv6 literal, each optionally with {@code :port} (IPv6 in brackets then), which admits that port
 * only; an entry without a port admits the default ports ({@link Builder#defaultPorts}). The proxy
 * resolves each name itself through {@code resolver} and connects only to an address it checked: a
 * link-local address (cloud metadata) never, an unspecified, multicast or reserved one never, a
 * loopback or private one (CGNAT included) only when that address is itself an entry, as for
 * {@code http_fetch}. A bare IP literal is reached only when it is an entry. Anything else is refused
 * with {@code 403} and an {@code X-Proxy-Error} header naming the reason. See docs/isolation.md,
 * "Network for commands".
 *
 * <p>A connection that has not yet sent its request, or was refused, holds no thread of this JVM (one
 * reactor per call reads every request head); one that reached a destination holds two until it ends.
 * So a call holds at most {@code 2 + 2 * }{@link #maxConnectionsPerCall()} threads, and a command that
 * floods the proxy with connections gets {@code 429} and costs the JVM nothing more.
 *
 * <p>Immutable. Thread-safe: one instance serves concurrent calls, each with its own limits and record.
 */
public final class CommandNetwork {
    private final List<String> hosts;
    private final Set<Integer> defaultPorts;
    private final int maxConnectionsPerCall;
    private final long maxBytesPerCall;
    private final Duration idleTimeout;
    private final Duration connectTimeout;
    private final int maxRecordedDestinations;
    private final int loopbackPort;
    private final CommandProxy proxy;

    private CommandNetwork(Builder b) {
        this.hosts = List.copyOf(b.hosts);
        this.defaultPorts = Set.copyOf(b.defaultPorts);
        this.maxConnectionsPerCall = b.maxConnectionsPerCall;
        this.maxBytesPerCall = b.maxBytesPerCall;
        this.idleTimeout = b.idleTimeout;
        this.connectTimeout = b.connectTimeout;
        this.maxRecordedDestinations = b.maxRecordedDestinations;
        this.loopbackPort = b.loopbackPort;
        this.proxy = CommandProxy.of(hosts, defaultPorts, b.resolver, new CommandProxy.Limits(maxConnectionsPerCall,
                maxBytesPerCall, idleTimeout, connectTimeout, maxRecordedDestinations), b.socketFactory);
    }

    /**
     * Network to {@code hosts} with the default limits.
     *
     * @param hosts the entries described above; at least one; never {@code null}
     * @param resolver resolves every name the command asks for; never {@code null}; there is no default
     * @return the network; never {@code null}
     * @throws NullPointerException if an argument or an entry is {@code null}
     * @throws IllegalArgumentException naming {@code hosts[i]} if an entry is invalid, or if {@code hosts} is empty
     */
    public static CommandNetwork allowHosts(List<String> hosts, Resolver resolver) {
        return builder(hosts, resolver).build();
    }

    /**
     * @param hosts the entries described above; at least one; never {@code null}
     * @param resolver resolves every name the command asks for; never {@code null}
     * @return a builder with the default limits; never {@code null}
     * @throws NullPointerException if an argument is {@code null}
     */
    public static Builder builder(List<String> hosts, Resolver resolver) {
        return new Builder(hosts, resolver);
    }

    /** @return the entries, as given; never {@code null} */
    public List<String> hosts() {
        return hosts;
    }

    /** @return the ports an entry without its own admits; default 80 and 443 */
    public Set<Integer> defaultPorts() {
        return defaultPorts;
    }

    /** @return connections one call may open (refused ones included); default 256 */
    public int maxConnectionsPerCall() {
        return maxConnectionsPerCall;
    }

    /** @return bytes one call may move through the proxy, both ways together; default 1 GiB */
    public long maxBytesPerCall() {
        return maxBytesPerCall;
    }

    /** @return how long a connection may carry nothing (before its request too) before it is closed; default 60 s */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** @return how long the proxy's connect to a checked address may take; default 10 s */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return distinct destinations one call's record lists before it only counts; default 64 */
    public int maxRecordedDestinations() {
        return maxRecordedDestinations;
    }

    /** @return the port the relay listens on inside the sandbox, on 127.0.0.1; default 3128 */
    public int loopbackPort() {
        return loopbackPort;
    }

    CommandProxy proxy() {
        return proxy;
    }

    /**
     * What one command did on the network, with how it ended.
     *
     * @param result how the command ended; never {@code null}
     * @param recordJson every destination it reached or was refused, as the call's record keeps it
     *     ({@link dev.toolyard.ToolOutput#withNetworkRecord(String)}); never {@code null}
     * @param lines one line per recorded destination, for the model ({@code reached pypi.test:443
     *     (203.0.113.7) x1 ...}); never {@code null}, empty when it opened no connection
     * @param connections connections the command opened to the proxy
     */
    public record Run(SubprocessResult result, String recordJson, List<String> lines, long connections) {
        /**
         * @param result how the command ended
         * @param recordJson the record, as JSON
         * @param lines the lines
         * @param connections the connection count
         * @throws NullPointerException if an argument is {@code null}
         */
        public Run {
            Objects.requireNonNull(result, "result");
            Objects.requireNonNull(recordJson, "recordJson");
            lines = List.copyOf(lines);
        }
    }

    /**
     * Runs one command on {@code runner} with this network, as {@code run_command} does for each call:
     * for an application's own command tool, such as a contract command ({@code ToolContract.bindCommand}
     * in {@code toolyard-contracts}). The proxy variables (see {@code ProxyEnvironment}: the common ones,
     * npm's, yarn's, pip's, git's and {@code JAVA_TOOL_OPTIONS}) are added to {@code env}. A tool that
     * calls this must declare {@link dev.toolyard.EgressClass#ALLOWLISTED} egress, so that the
     * invocation's egress ceiling bounds it.
     *
     * @param runner the sandbox; its {@link IsolatedRunner#proxyRouteUnavailable()} must be empty
     * @param argv the command and its arguments
     * @param workspace the roots to bind
     * @param timeout the run's deadline
     * @param env the application's environment for the command, without proxy variables
     * @return how it ended and what it did on the network; never {@code null}
     * @throws IsolationUnavailableException if the runner cannot give a command network
     * @throws IllegalArgumentException if {@code env} sets a variable the proxy sets (other than
     *     {@code JAVA_TOOL_OPTIONS}), or as the runner's {@code runIsolated}
     * @throws NullPointerException if an argument is {@code null}
     */
    public Run runIsolated(IsolatedRunner runner, List<String> argv, SandboxPaths workspace, Duration timeout,
            Map<String, String> env) {
        Objects.requireNonNull(runner, "runner");
        Map<String, String> environment = ProxyEnvironment.with(Objects.requireNonNull(env, "env"), loopbackPort);
        AtomicReference<CommandProxy.Session> session = new AtomicReference<>();
        ProxyRoute route = new ProxyRoute() {
            @Override
            public int loopbackPort() {
                return loopbackPort;
            }

            @Override
            public Closeable listen(Path socket) throws IOException {
                CommandProxy.Session s = proxy.open(socket);
                session.set(s);
                return s;
            }
        };
        SubprocessResult r;
        try {
            r = runner.runIsolated(argv, workspace, timeout, environment, route);
        } finally {
            CommandProxy.Session s = session.get();
            if (s != null) {
                s.close(); // the runner closed it already; closing is idempotent
            }
        }
        CommandProxy.Session s = session.get();
        return s == null ? new Run(r, "", List.of(), 0) : new Run(r, s.recordJson(), s.lines(), s.connections());
    }

    @Override
    public String toString() {
        // Counts only: the entries are not shown, as for http_fetch.
        return "CommandNetwork[" + hosts.size() + " entries, ports " + new TreeSet<>(defaultPorts) + "]";
    }

    /**
     * Builds a {@link CommandNetwork}. Each limit has a default, stated on its method. Not thread-safe;
     * {@link #build()} copies what it needs.
     */
    public static final class Builder {
        private final List<String> hosts;
        private final Resolver resolver;
        private Set<Integer> defaultPorts = Set.of(80, 443);
        private int maxConnectionsPerCall = 256;
        private long maxBytesPerCall = 1L << 30;
        private Duration idleTimeout = Duration.ofSeconds(60);
        private Duration connectTimeout = Duration.ofSeconds(10);
        private int maxRecordedDestinations = 64;
        private int loopbackPort = 3128;
        private SocketFactory socketFactory = SocketFactory.getDefault();

        private Builder(List<String> hosts, Resolver resolver) {
            this.hosts = List.copyOf(Objects.requireNonNull(hosts, "hosts"));
            this.resolver = Objects.requireNonNull(resolver, "resolver");
        }

        /**
         * @param first a port an entry without its own admits
         * @param more more such ports
         * @return this builder
         * @throws IllegalArgumentException if a port is outside 1-65535
         */
        public Builder defaultPorts(int first, int... more) {
            Set<Integer> ports = new TreeSet<>();
            ports.add(port("defaultPorts", first));
            for (int p : more) {
                ports.add(port("defaultPorts", p));
            }
            this.defaultPorts = ports;
            return this;
        }

        /**
         * @param max connections one call may open, refused ones included; default 256; one more gets
         *     {@code 429} with {@code X-Proxy-Error: connection_limit}
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is not 1-100,000
         */
        public Builder maxConnectionsPerCall(int max) {
            if (max < 1 || max > 100_000) {
                throw new IllegalArgumentException("maxConnectionsPerCall must be 1-100000, got " + max);
            }
            this.maxConnectionsPerCall = max;
            return this;
        }

        /**
         * @param max bytes one call may move, both ways together; default 1 GiB; the connection that
         *     crosses it is closed, and so is every later one that moves a byte
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is not positive
         */
        public Builder maxBytesPerCall(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxBytesPerCall must be positive, got " + max);
            }
            this.maxBytesPerCall = max;
            return this;
        }

        /**
         * @param idle how long a connection may carry nothing before it is closed; default 60 s
         * @return this builder
         * @throws IllegalArgumentException if it is not positive or above one hour
         */
        public Builder idleTimeout(Duration idle) {
            this.idleTimeout = duration("idleTimeout", idle);
            return this;
        }

        /**
         * @param timeout how long the proxy's connect to a checked address may take; default 10 s
         * @return this builder
         * @throws IllegalArgumentException if it is not positive or above one hour
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = duration("connectTimeout", timeout);
            return this;
        }

        /**
         * @param max distinct destinations (host, port, address, outcome) one call's record lists; later
         *     ones are only counted; default 64
         * @return this builder
         * @throws IllegalArgumentException if {@code max} is not 1-10,000
         */
        public Builder maxRecordedDestinations(int max) {
            if (max < 1 || max > 10_000) {
                throw new IllegalArgumentException("maxRecordedDestinations must be 1-10000, got " + max);
            }
            this.maxRecordedDestinations = max;
            return this;
        }

        /**
         * @param port the port the relay listens on inside the sandbox, on 127.0.0.1; default 3128
         * @return this builder
         * @throws IllegalArgumentException if it is outside 1-65535
         */
        public Builder loopbackPort(int port) {
            this.loopbackPort = port("loopbackPort", port);
            return this;
        }

        /**
         * @param factory creates every socket the proxy opens to a destination; default
         *     {@link SocketFactory#getDefault()}. It only ever sees checked addresses; a test passes one
         *     that refuses any connect off loopback.
         * @return this builder
         * @throws IllegalArgumentException if it is an SSL socket factory (TLS passes through untouched)
         */
        public Builder socketFactory(SocketFactory factory) {
            Objects.requireNonNull(factory, "socketFactory");
            if (factory instanceof SSLSocketFactory) {
                throw new IllegalArgumentException("socketFactory must create plain sockets: TLS passes through the"
                        + " proxy untouched");
            }
            this.socketFactory = factory;
            return this;
        }

        /**
         * @return the network; never {@code null}
         * @throws IllegalArgumentException naming {@code hosts[i]} if an entry is invalid, or if there is none
         */
        public CommandNetwork build() {
            return new CommandNetwork(this);
        }

        private static int port(String parameter, int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException(parameter + " must be 1-65535, got " + port);
            }
            return port;
        }

        private static Duration duration(String parameter, Duration d) {
            Objects.requireNonNull(d, parameter);
            if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException(parameter + " must be positive and at most PT1H, got " + d);
            }
            return d;
        }
    }
}
