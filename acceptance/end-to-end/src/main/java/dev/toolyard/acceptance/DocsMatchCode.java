package dev.toolyard.acceptance;

import dev.toolyard.EgressClass;
import dev.toolyard.InvalidToolSpecException;
import dev.toolyard.RiskClass;
import dev.toolyard.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Acceptance check (f): what the documentation tells a tool author agrees with the code. The Java
 * blocks of {@code docs/writing-tools.md} compile and run using only public API, no documented Java
 * block imports an {@code internal} package, and the refused {@code $} keywords listed in
 * {@code docs/writing-tools.md} and in {@code ToolSpec}'s Javadoc are exactly the ones
 * {@code ToolSpec.Builder.build()} refuses.
 */
final class DocsMatchCode {
    /**
     * Every keyword of the JSON Schema core vocabularies that starts with {@code $} (2019-09 and
     * 2020-12), and draft-07's {@code definitions}: the candidates whose refusal the docs must state
     * exactly. Any keyword a doc lists is probed as well.
     */
    static final List<String> CORE_KEYWORDS = List.of("$schema", "$vocabulary", "$id", "$anchor", "$dynamicAnchor",
            "$ref", "$dynamicRef", "$defs", "$comment", "$recursiveRef", "$recursiveAnchor", "definitions");

    private DocsMatchCode() {}

    static void run(Checks checks, Path project) throws Exception {
        Path writingTools = project.resolve("docs/writing-tools.md");
        String printed = EndToEnd.javaExamples(checks, writingTools, "(f) docs/writing-tools.md")
                .getOrDefault("AppendNoteTool", "");
        checks.that(printed.contains("OK ship it") && printed.contains("REFUSED path_escape, outside untouched: true"),
                "(f) the guide's example appends, and its walk refuses a directory swapped for a link after the"
                        + " check, writing nothing outside: " + printed.strip().replace('\n', ' '));
        noInternalImports(checks, project);
        refusedKeywords(checks, project, writingTools);
    }

    private static void noInternalImports(Checks checks, Path project) throws Exception {
        List<Path> docs = new ArrayList<>(List.of(project.resolve("README.md"), project.resolve("SECURITY.md")));
        try (Stream<Path> files = Files.walk(project.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).forEach(docs::add);
        }
        Pattern block = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
        Pattern internal = Pattern.compile("import\\s+(?:static\\s+)?(dev\\.toolyard(?:\\.\\w+)*\\.internal\\b[\\w.*]*)");
        List<String> found = new ArrayList<>();
        int blocks = 0;
        for (Path doc : docs) {
            Matcher b = block.matcher(Files.readString(doc));
            while (b.find()) {
                blocks++;
                Matcher i = internal.matcher(b.group(1));
                while (i.find()) {
                    found.add(project.relativize(doc) + ": " + i.group(1));
                }
            }
        }
        checks.that(blocks > 0 && found.isEmpty(), "(f) none of the " + blocks + " Java blocks in the docs imports an"
                + " internal package" + (found.isEmpty() ? "" : "; imported: " + found));
    }

    private static void refusedKeywords(Checks checks, Path project, Path writingTools) throws Exception {
        Set<String> inGuide = listed(Files.readString(writingTools), "- No references", "are refused", "`([^`]+)`");
        Set<String> inJavadoc = listed(Files.readString(project.resolve(
                "toolyard-core/src/main/java/dev/toolyard/ToolSpec.java")), "<li>the {@code $ref} family", "refused;",
                "\\{@code ([^}]+)}");
        Set<String> candidates = new LinkedHashSet<>(CORE_KEYWORDS);
        candidates.addAll(inGuide);
        candidates.addAll(inJavadoc);
        Set<String> refused = new TreeSet<>();
        for (String keyword : candidates) {
            if (refusedByBuild(keyword)) {
                refused.add(keyword);
            }
        }
        checks.that(refused.size() >= 7, "(f) ToolSpec refuses the $ref family: " + refused);
        checks.that(inGuide.equals(refused), "(f) docs/writing-tools.md lists exactly the " + refused.size()
                + " keywords ToolSpec refuses" + (inGuide.equals(refused) ? "" : ": it lists " + inGuide));
        checks.that(inJavadoc.equals(refused), "(f) ToolSpec's Javadoc lists exactly the " + refused.size()
                + " keywords ToolSpec refuses" + (inJavadoc.equals(refused) ? "" : ": it lists " + inJavadoc));
    }

    /** The keywords ({@code $...} and {@code definitions}) quoted between {@code start} and {@code end}. */
    private static Set<String> listed(String text, String start, String end, String quoted) {
        int from = text.indexOf(start);
        if (from < 0) {
            return Set.of();
        }
        int to = text.indexOf(end, from);
        Matcher m = Pattern.compile(quoted).matcher(text.substring(from, to < 0 ? text.length() : to));
        Set<String> keywords = new TreeSet<>();
        while (m.find()) {
            String k = m.group(1);
            if (k.startsWith("$") || k.equals("definitions")) {
                keywords.add(k);
            }
        }
        return keywords;
    }

    /** Builds a spec with the keyword in a property's subschema, where a validator would read it. */
    private static boolean refusedByBuild(String keyword) {
        String value = switch (keyword) {
            case "$defs", "definitions", "$vocabulary" -> "{}";
            case "$recursiveAnchor" -> "true";
            default -> "\"#x\"";
        };
        String schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"" + keyword + "\":" + value
                + "}},\"additionalProperties\":false}";
        try {
            ToolSpec.builder("keyword_probe").description("probe").argsSchema(schema).riskClass(RiskClass.READ_ONLY)
                    .egress(EgressClass.NONE).build();
            return false;
        } catch (InvalidToolSpecException e) {
            return true;
        }
    }
}
