package dev.toolyard.builtins.internal;

import dev.toolyard.builtins.IpLiterals;
import dev.toolyard.builtins.Resolver;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Resolver} for tests: each host answers from a script, one answer set per question, the last
 * set repeating; an unscripted host does not resolve. It records every question. It never touches the
 * network: addresses are built from literals by hand. Thread-safe.
 */
public final class ScriptedResolver implements Resolver {
    private final Map<String, Deque<List<InetAddress>>> script = new ConcurrentHashMap<>();
    private final List<String> questions = new ArrayList<>();

    /**
     * Adds one answer set for {@code host}: the next question about it gets these addresses.
     *
     * @param host the host name
     * @param literals IP literals (dotted quads or IPv6 text; IPv6 text stays an {@link Inet6Address},
     *     even when it maps an IPv4 address)
     * @return this resolver
     */
    public ScriptedResolver answer(String host, String... literals) {
        List<InetAddress> set = new ArrayList<>();
        for (String literal : literals) {
            set.add(address(literal));
        }
        script.computeIfAbsent(host, h -> new ArrayDeque<>()).add(List.copyOf(set));
        return this;
    }

    /** @return every host asked about, in order */
    public synchronized List<String> questions() {
        return List.copyOf(questions);
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        synchronized (this) {
            questions.add(host);
        }
        Deque<List<InetAddress>> answers = script.get(host);
        if (answers == null) {
            throw new UnknownHostException("not scripted: " + host);
        }
        synchronized (answers) {
            return answers.size() > 1 ? answers.poll() : answers.peek();
        }
    }

    /** Builds an address from an IP literal without any lookup. */
    public static InetAddress address(String literal) {
        try {
            if (literal.indexOf(':') >= 0) {
                byte[] bytes = IpLiterals.ipv6(literal);
                if (bytes == null) {
                    throw new IllegalArgumentException("not an IPv6 literal: " + literal);
                }
                return Inet6Address.getByAddress(null, bytes, null);
            }
            byte[] bytes = IpLiterals.canonicalIpv4(literal);
            if (bytes == null) {
                throw new IllegalArgumentException("not a dotted quad: " + literal);
            }
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
