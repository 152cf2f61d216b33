package dev.toolyard.contracts.internal;

import dev.toolyard.spi.Json;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The built-in output parsers. {@code text}: {@code {"raw_output": text}}. {@code json}: the document
 * (depth and size limits of core's parser, trailing data refused). {@code jsonl}: an array of one value
 * per non-blank line. {@code csv}: RFC 4180 with a header row, an array of objects of strings.
 * {@code xml}: refused outright if it contains {@code <!DOCTYPE} or {@code <!ENTITY} (any case), then
 * parsed by a JDK parser with DTDs disallowed, external entities and XInclude off and secure
 * processing on, and turned into JSON: an element is an object of its attributes, its child elements
 * by name (each an array) and its text under {@code #text}. Stateless. Thread-safe.
 */
public final class OutputParsers {
    /** Why an output could not be parsed; the detail never quotes the output. */
    public static final class Unparseable extends Exception {
        private static final long serialVersionUID = 1L;

        Unparseable(String detail) {
            super(detail, null, false, false);
        }
    }

    private OutputParsers() {}

    /**
     * @param parser text, json, jsonl, csv or xml
     * @param output the raw output
     * @return the parsed output
     * @throws Unparseable when the output is not what the parser reads
     */
    public static JsonNode parse(String parser, String output) throws Unparseable {
        switch (parser) {
            case "text": {
                ObjectNode o = Json.MAPPER.createObjectNode();
                o.put("raw_output", output);
                return o;
            }
            case "json":
                return json(output, "the output");
            case "jsonl": {
                ArrayNode a = Json.MAPPER.createArrayNode();
                String[] lines = output.split("\r?\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    if (!lines[i].isBlank()) {
                        a.add(json(lines[i], "line " + (i + 1)));
                    }
                }
                return a;
            }
            case "csv":
                return csv(output);
            case "xml":
                return xml(output);
            default:
                throw new AssertionError(parser);
        }
    }

    private static JsonNode json(String text, String what) throws Unparseable {
        try {
            JsonNode n = Json.MAPPER.readTree(text);
            if (n == null || n.isMissingNode()) {
                throw new Unparseable(what + " is empty, not JSON");
            }
            return n;
        } catch (RuntimeException | StackOverflowError e) {
            throw new Unparseable(what + " is not valid JSON (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static JsonNode csv(String text) throws Unparseable {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '"') {
                        field.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.length() == 0) {
                quoted = true;
                any = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
                any = true;
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    i++;
                }
                if (any || field.length() > 0) {
                    row.add(field.toString());
                    rows.add(row);
                }
                row = new ArrayList<>();
                field.setLength(0);
                any = false;
            } else {
                field.append(c);
                any = true;
            }
        }
        if (quoted) {
            throw new Unparseable("the output is not valid CSV: an unclosed quote");
        }
        if (any || field.length() > 0) {
            row.add(field.toString());
            rows.add(row);
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        if (rows.isEmpty()) {
            return out;
        }
        List<String> header = rows.get(0);
        for (int r = 1; r < rows.size(); r++) {
            List<String> values = rows.get(r);
            if (values.size() != header.size()) {
                throw new Unparseable("the output is not valid CSV: row " + (r + 1) + " has " + values.size()
                        + " fields, the header " + header.size());
            }
            ObjectNode o = out.addObject();
            for (int i = 0; i < header.size(); i++) {
                o.put(header.get(i), values.get(i));
            }
        }
        return out;
    }

    private static JsonNode xml(String text) throws Unparseable {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("<!doctype") || lower.contains("<!entity")) {
            throw new Unparseable("the output is XML with a <!DOCTYPE or <!ENTITY declaration, which is refused");
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setNamespaceAware(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setEntityResolver((publicId, systemId) -> {
                throw new org.xml.sax.SAXException("external entities are refused");
            });
            b.setErrorHandler(null);
            Element root = b.parse(new InputSource(new StringReader(text))).getDocumentElement();
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.set(root.getTagName(), element(root, 0));
            return out;
        } catch (Unparseable e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            throw new Unparseable("the output is not well-formed XML (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static ObjectNode element(Element e, int depth) throws Unparseable {
        if (depth > 64) {
            throw new Unparseable("the XML output nests deeper than 64 elements");
        }
        ObjectNode o = Json.MAPPER.createObjectNode();
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            o.put(attrs.item(i).getNodeName(), attrs.item(i).getNodeValue());
        }
        StringBuilder text = new StringBuilder();
        NodeList children = e.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            Node c = children.item(i);
            if (c instanceof Element ce) {
                JsonNode existing = o.get(ce.getTagName());
                ArrayNode list = existing instanceof ArrayNode a ? a : o.putArray(ce.getTagName());
                list.add(element(ce, depth + 1));
            } else if (c.getNodeType() == Node.TEXT_NODE || c.getNodeType() == Node.CDATA_SECTION_NODE) {
                text.append(c.getNodeValue());
            }
        }
        if (!text.toString().isBlank()) {
            o.put("#text", text.toString().strip());
        }
        return o;
    }
}
