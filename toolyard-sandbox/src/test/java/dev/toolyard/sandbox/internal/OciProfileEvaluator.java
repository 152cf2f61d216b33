package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Decides a call the way libseccomp, through runc, decides it from an OCI/Docker profile: the arch
 * must be listed (else the bad-arch action, fatal); the rules naming the call are ORed; within a
 * rule the argument comparisons are ANDed and compare all 64 bits; {@code SCMP_CMP_MASKED_EQ} is
 * {@code (arg & value) == valueTwo}. Refuses any key, action or operator it does not model, so a
 * profile cannot pass by using something this reading ignores. Immutable.
 */
final class OciProfileEvaluator {
    /** The outcome for a call on a foreign arch. */
    static final int KILL = -1;
    /** The outcome for an allowed call. */
    static final int ALLOW = 0;

    private record Cmp(int index, long value, long valueTwo, String op) {
        boolean holds(long[] args) {
            long a = args[index];
            switch (op) {
                case "SCMP_CMP_MASKED_EQ":
                    return (a & value) == valueTwo;
                case "SCMP_CMP_EQ":
                    return a == value;
                case "SCMP_CMP_NE":
                    return a != value;
                default:
                    throw new IllegalStateException("operator " + op + " is not modelled");
            }
        }
    }

    private record Rule(Set<String> names, int errno, List<Cmp> args) {}

    private final Set<String> architectures = new HashSet<>();
    private final List<Rule> rules = new ArrayList<>();

    OciProfileEvaluator(String json) {
        JsonNode root = Json.MAPPER.readTree(json);
        onlyKeys(root, Set.of("defaultAction", "architectures", "syscalls"));
        if (!root.get("defaultAction").asString().equals("SCMP_ACT_ALLOW")) {
            throw new IllegalStateException("only a default-allow profile is modelled");
        }
        root.get("architectures").forEach(a -> architectures.add(a.asString()));
        for (JsonNode r : root.get("syscalls")) {
            onlyKeys(r, Set.of("names", "action", "errnoRet", "args", "comment"));
            if (!r.get("action").asString().equals("SCMP_ACT_ERRNO")) {
                throw new IllegalStateException("only SCMP_ACT_ERRNO rules are modelled: " + r);
            }
            Set<String> names = new HashSet<>();
            r.get("names").forEach(n -> names.add(n.asString()));
            List<Cmp> args = new ArrayList<>();
            Set<Integer> seen = new HashSet<>();
            if (r.has("args")) {
                for (JsonNode c : r.get("args")) {
                    onlyKeys(c, Set.of("index", "value", "valueTwo", "op"));
                    int index = c.get("index").asInt();
                    if (!seen.add(index)) {
                        // the engine does not AND two comparisons of one argument (runc 1.1.5 with
                        // libseccomp 2.5.4 denied personality(0) under "NE 0" plus "NE 0xffffffff")
                        throw new IllegalStateException("two comparisons of arg " + index + " in one rule: " + r);
                    }
                    args.add(new Cmp(index, unsigned(c.get("value")), unsigned(c.get("valueTwo")),
                            c.get("op").asString()));
                }
            }
            rules.add(new Rule(names, r.get("errnoRet").asInt(), args));
        }
    }

    private static long unsigned(JsonNode n) {
        return Long.parseUnsignedLong(n.asString());
    }

    private static void onlyKeys(JsonNode node, Set<String> allowed) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
            String k = it.next().getKey();
            if (!allowed.contains(k)) {
                throw new IllegalStateException("key " + k + " is not modelled");
            }
        }
    }

    /** @return {@link #KILL}, {@link #ALLOW} or the errno for {@code name(args)} on {@code arch} */
    int decide(SeccompArch arch, String name, long... args) {
        if (!architectures.contains(arch.ociName())) {
            return KILL;
        }
        long[] full = new long[6];
        System.arraycopy(args, 0, full, 0, args.length);
        OptionalInt errno = OptionalInt.empty();
        for (Rule r : rules) {
            if (r.names().contains(name) && r.args().stream().allMatch(c -> c.holds(full))) {
                if (errno.isPresent() && errno.getAsInt() != r.errno()) {
                    throw new IllegalStateException(name + " matches rules with different errnos");
                }
                errno = OptionalInt.of(r.errno());
            }
        }
        return errno.orElse(ALLOW);
    }
}
