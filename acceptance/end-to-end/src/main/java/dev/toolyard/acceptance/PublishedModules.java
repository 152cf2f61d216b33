package dev.toolyard.acceptance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Acceptance check (g): ready to publish. The modules are read from the parent POM (its
 * {@code <modules>} and its profiles', recursively), never from a list kept here, so a module added
 * later is judged too. A module is published unless its POM, or the aggregator POM above it, sets
 * {@code maven.deploy.skip} to {@code true}. Every published module but the BOM itself must be in
 * the BOM at {@code ${project.version}}, the BOM must name nothing else, and the POM metadata Maven
 * Central asks for must be there.
 */
final class PublishedModules {
    private static final String GROUP = "dev.toolyard";

    private PublishedModules() {}

    /** One module of the reactor, as its POM declares it. */
    record Module(String path, String artifactId, String packaging, boolean published, Element pom) {}

    static void run(Checks checks, Path project) throws Exception {
        Element parent = read(project.resolve("pom.xml"));
        Map<String, Module> modules = new LinkedHashMap<>();
        collect(project, project, parent, false, modules);
        List<String> unpublished = new ArrayList<>();
        Set<String> published = new TreeSet<>();
        for (Module m : modules.values()) {
            if (m.published()) {
                published.add(m.artifactId());
            } else {
                unpublished.add(m.artifactId() + " (" + m.path() + ")");
            }
        }
        checks.that(published.contains("toolyard-core") && published.contains("toolyard-bom"),
                "(g) published modules, read from the parent POM: " + published);
        System.out.println("        not published (maven.deploy.skip): " + unpublished);

        Module bomModule = modules.values().stream().filter(m -> m.artifactId().equals("toolyard-bom")).findFirst()
                .orElse(null);
        checks.that(bomModule != null, "(g) the reactor builds toolyard-bom");
        if (bomModule == null) {
            return;
        }
        Map<String, String> inBom = new LinkedHashMap<>();
        Element management = child(bomModule.pom(), "dependencyManagement");
        Element dependencies = management == null ? null : child(management, "dependencies");
        for (Element d : dependencies == null ? List.<Element>of() : children(dependencies, "dependency")) {
            if (GROUP.equals(text(d, "groupId"))) {
                inBom.put(text(d, "artifactId"), text(d, "version"));
            }
        }
        Set<String> missing = new TreeSet<>(published);
        missing.remove("toolyard-bom");
        missing.removeAll(inBom.keySet());
        checks.that(missing.isEmpty(), "(g) the BOM lists every published module"
                + (missing.isEmpty() ? "" : "; missing: " + missing + " (add each to toolyard-bom/pom.xml, or set"
                        + " maven.deploy.skip in its POM if it is not published)"));
        Set<String> extra = new TreeSet<>(inBom.keySet());
        extra.removeAll(published);
        checks.that(extra.isEmpty(), "(g) the BOM lists only published modules of this reactor"
                + (extra.isEmpty() ? "" : "; also lists: " + extra));
        List<String> wrongVersion = new ArrayList<>();
        inBom.forEach((artifact, version) -> {
            if (!"${project.version}".equals(version)) {
                wrongVersion.add(artifact + " at " + version);
            }
        });
        checks.that(wrongVersion.isEmpty(), "(g) every BOM entry is at ${project.version}"
                + (wrongVersion.isEmpty() ? "" : "; not: " + wrongVersion));

        metadata(checks, "the parent POM", parent, true);
        metadata(checks, "the BOM (no parent)", bomModule.pom(), true);
        for (Module m : modules.values()) {
            if (m.published() && !m.artifactId().equals("toolyard-bom")) {
                metadata(checks, m.artifactId(), m.pom(), false);
            }
        }
        String timestamp = text(child(parent, "properties"), "project.build.outputTimestamp");
        checks.that(timestamp != null && !timestamp.isBlank(),
                "(g) the parent sets project.build.outputTimestamp for reproducible builds: " + timestamp);
    }

    /** Name and description for every module; URL, license, SCM and developers where they are declared. */
    private static void metadata(Checks checks, String what, Element pom, boolean declaresProject) {
        List<String> absent = new ArrayList<>();
        for (String field : List.of("name", "description")) {
            if (blank(text(pom, field))) {
                absent.add(field);
            }
        }
        if (declaresProject) {
            if (blank(text(pom, "url"))) {
                absent.add("url");
            }
            Element licenses = child(pom, "licenses");
            if (licenses == null || children(licenses, "license").stream()
                    .anyMatch(l -> blank(text(l, "name")) || blank(text(l, "url")))) {
                absent.add("licenses (name and url)");
            }
            Element scm = child(pom, "scm");
            if (scm == null || blank(text(scm, "url")) || blank(text(scm, "connection"))) {
                absent.add("scm (url and connection)");
            }
            Element developers = child(pom, "developers");
            if (developers == null || children(developers, "developer").isEmpty()
                    || children(developers, "developer").stream().anyMatch(d -> blank(text(d, "name")))) {
                absent.add("developers");
            }
        }
        checks.that(absent.isEmpty(), "(g) POM metadata of " + what + " is complete"
                + (absent.isEmpty() ? "" : "; absent: " + absent));
    }

    private static void collect(Path project, Path dir, Element pom, boolean inheritedSkip, Map<String, Module> out)
            throws Exception {
        List<Element> moduleLists = new ArrayList<>();
        Element modules = child(pom, "modules");
        if (modules != null) {
            moduleLists.add(modules);
        }
        Element profiles = child(pom, "profiles");
        if (profiles != null) {
            for (Element profile : children(profiles, "profile")) {
                Element m = child(profile, "modules");
                if (m != null) {
                    moduleLists.add(m);
                }
            }
        }
        for (Element list : moduleLists) {
            for (Element module : children(list, "module")) {
                Path moduleDir = dir.resolve(module.getTextContent().trim()).normalize();
                Element child = read(moduleDir.resolve("pom.xml"));
                String skip = text(child(child, "properties"), "maven.deploy.skip");
                boolean skipped = skip == null ? inheritedSkip : Boolean.parseBoolean(skip.trim());
                String packaging = text(child, "packaging");
                Module m = new Module(project.relativize(moduleDir).toString(), text(child, "artifactId"),
                        packaging == null ? "jar" : packaging, !skipped, child);
                out.putIfAbsent(m.artifactId(), m);
                collect(project, moduleDir, child, skipped, out);
            }
        }
    }

    private static Element read(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = factory.newDocumentBuilder().parse(Files.newInputStream(pom));
        return doc.getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
