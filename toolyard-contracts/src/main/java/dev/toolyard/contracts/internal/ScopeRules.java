package dev.toolyard.contracts.internal;

import java.util.List;
import java.util.Locale;

/**
 * A scope file's rules, checked when loaded. Blocked rules are evaluated first and always win. A
 * domain rule is exact (case-insensitive) or {@code *.example.com}, which matches strict subdomains at
 * any depth but not the apex and not {@code evil-example.com}. An address matches an allowed range
 * that contains it; a range matches only when an allowed range contains all of it, and is blocked
 * when it overlaps a blocked range. A host name is never resolved to be checked against ranges.
 * Immutable. Thread-safe.
 *
 * @param allowedDomains lower-case rules
 * @param allowedCidrs allowed ranges
 * @param blockedDomains lower-case rules
 * @param blockedCidrs blocked ranges
 * @param present whether a scope was given at all ({@code false} for {@code Scope.none()})
 */
public record ScopeRules(List<String> allowedDomains, List<TargetHosts.Cidr> allowedCidrs, List<String> blockedDomains,
        List<TargetHosts.Cidr> blockedCidrs, boolean present) {
    /** The absent scope: nothing is in it, and a manifest that needs one is refused at bind. */
    public static final ScopeRules NONE = new ScopeRules(List.of(), List.of(), List.of(), List.of(), false);

    /** Copies the lists. */
    public ScopeRules {
        allowedDomains = List.copyOf(allowedDomains);
        allowedCidrs = List.copyOf(allowedCidrs);
        blockedDomains = List.copyOf(blockedDomains);
        blockedCidrs = List.copyOf(blockedCidrs);
    }

    /**
     * @param rule a domain rule, lower case
     * @param host a host name
     * @return whether the rule matches the host (vector-tested against ToolClad's scope vectors)
     */
    public static boolean domainMatches(String rule, String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (rule.startsWith("*.")) {
            String apex = rule.substring(2);
            return h.length() > apex.length() + 1 && h.endsWith("." + apex);
        }
        return rule.equals(h);
    }

    /** @return whether a host name is in scope */
    public boolean admitsName(String host) {
        for (String rule : blockedDomains) {
            if (domainMatches(rule, host)) {
                return false;
            }
        }
        for (String rule : allowedDomains) {
            if (domainMatches(rule, host)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether an address is in scope */
    public boolean admitsAddress(byte[] address) {
        for (TargetHosts.Cidr c : blockedCidrs) {
            if (c.contains(address)) {
                return false;
            }
        }
        for (TargetHosts.Cidr c : allowedCidrs) {
            if (c.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether a whole range is in scope */
    public boolean admitsRange(TargetHosts.Cidr range) {
        for (TargetHosts.Cidr c : blockedCidrs) {
            if (c.overlaps(range)) {
                return false;
            }
        }
        for (TargetHosts.Cidr c : allowedCidrs) {
            if (c.containsRange(range)) {
                return true;
            }
        }
        return false;
    }
}
