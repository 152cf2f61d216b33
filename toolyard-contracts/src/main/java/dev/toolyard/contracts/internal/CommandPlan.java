package dev.toolyard.contracts.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How an argv is built from {@code [command] exec}: each element is a literal or exactly one
 * placeholder, decided at load; a value fills one element and is never re-split, an empty or absent
 * value drops its element, a mapping or a true conditional adds the manifest's own tokens, and
 * {@code end_of_options = "--"} puts a literal {@code --} before the positional tail: the trailing run
 * of argument placeholders after the last option, mapping or conditional (so {@code -X {method}}
 * keeps its value next to its flag, and {@code {url}} at the end comes after {@code --}), when that
 * tail emits anything. Immutable. Thread-safe.
 *
 * @param elements the exec array, parsed
 * @param endOfOptions whether {@code --} goes before the first model value
 * @param declaredExec whether the manifest declared {@code exec} (not the deprecated {@code template})
 */
public record CommandPlan(List<Element> elements, boolean endOfOptions, boolean declaredExec) {
    /** Copies the list. */
    public CommandPlan {
        elements = List.copyOf(elements);
    }

    /** A piece of a template: literal text or a placeholder. */
    public sealed interface Part permits Literal, Placeholder {}

    /** @param text literal text, braces already unescaped */
    public record Literal(String text) implements Part {}

    /** @param name the placeholder's name, between the braces */
    public record Placeholder(String name) implements Part {}

    /** One element of the exec array, resolved at load. */
    public sealed interface Element permits Fixed, Value, Mapped, Conditional, Conditionals {}

    /** @param text a literal argv element */
    public record Fixed(String text) implements Element {}

    /** @param arg the argument (or {@code [command.defaults]} key) whose value fills the element */
    public record Value(String arg) implements Element {}

    /**
     * @param arg the enum argument
     * @param tokens each allowed value's tokens
     */
    public record Mapped(String arg, Map<String, List<String>> tokens) implements Element {
        /** Copies the map. */
        public Mapped {
            tokens = Map.copyOf(tokens);
        }
    }

    /**
     * A {@code [command.conditionals]} entry.
     *
     * @param name its name
     * @param when the clauses, all of which must hold
     * @param elements what it adds when they do ({@link Fixed} and {@link Value} only)
     */
    public record Conditional(String name, List<Clause> when, List<Element> elements) implements Element {
        /** Copies the lists. */
        public Conditional {
            when = List.copyOf(when);
            elements = List.copyOf(elements);
        }
    }

    /** @param all every conditional, in declaration order ({@code {_conditional_flags}}) */
    public record Conditionals(List<Conditional> all) implements Element {
        /** Copies the list. */
        public Conditionals {
            all = List.copyOf(all);
        }
    }

    /**
     * {@code arg == 'literal'} or {@code arg != 'literal'}, compared as strings with the normalised value
     * (an absent argument is {@code ''}).
     *
     * @param arg the argument
     * @param equal {@code true} for {@code ==}
     * @param literal the literal
     */
    public record Clause(String arg, boolean equal, String literal) {}

    /**
     * Builds the argv.
     *
     * @param values the normalised text of every given or defaulted argument and every
     *     {@code [command.defaults]} key
     * @param userArgs the names of the arguments the model gave (kept for callers; the tail rule needs none)
     * @return the argv; the first element is always the manifest's literal argv[0]
     */
    public List<String> argv(Map<String, String> values, java.util.Set<String> userArgs) {
        List<String> out = new ArrayList<>();
        int tail = elements.size();
        while (tail > 1 && elements.get(tail - 1) instanceof Value) {
            tail--;
        }
        for (int i = 0; i < elements.size(); i++) {
            if (endOfOptions && i == tail) {
                int before = out.size();
                for (int j = i; j < elements.size(); j++) {
                    add(elements.get(j), values, out);
                }
                if (out.size() > before) {
                    out.add(before, "--");
                }
                break;
            }
            add(elements.get(i), values, out);
        }
        return out;
    }

    private static void add(Element e, Map<String, String> values, List<String> out) {
        if (e instanceof Fixed f) {
            out.add(f.text());
        } else if (e instanceof Value v) {
            String text = values.get(v.arg());
            if (text != null && !text.isEmpty()) {
                out.add(text);
            }
        } else if (e instanceof Mapped m) {
            String text = values.get(m.arg());
            if (text != null) {
                out.addAll(m.tokens().getOrDefault(text, List.of()));
            }
        } else if (e instanceof Conditional c) {
            if (holds(c, values)) {
                for (Element inner : c.elements()) {
                    add(inner, values, out);
                }
            }
        } else if (e instanceof Conditionals all) {
            for (Conditional c : all.all()) {
                add(c, values, out);
            }
        }
    }

    private static boolean holds(Conditional c, Map<String, String> values) {
        for (Clause clause : c.when()) {
            String v = values.getOrDefault(clause.arg(), "");
            if (v.equals(clause.literal()) != clause.equal()) {
                return false;
            }
        }
        return true;
    }
}
