package dev.toolyard.internal;

import dev.toolyard.spi.Text;
import dev.toolyard.spi.Json;
import com.networknt.schema.regex.RegularExpressions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JsonParser.NumberType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeType;

/**
 * A validator for the closed JSON Schema subset that tool schemas use, compiled once from the schema
 * tree and run as one walk of the parsed arguments that allocates nothing when they are valid. It
 * decides exactly what the networknt validator, configured as the executor configures it, decides;
 * {@code CompiledSchemaDifferentialFuzzTest} holds the two to that.
 *
 * <p><b>The subset.</b> {@code type} (a name or an array of names), {@code properties},
 * {@code required}, {@code additionalProperties} ({@code false}, {@code true} or absent),
 * {@code items} (one schema), {@code enum} and {@code const} (scalar values), {@code minimum},
 * {@code maximum}, {@code exclusiveMinimum}, {@code exclusiveMaximum} (numbers), {@code minLength},
 * {@code maxLength}, {@code minItems}, {@code maxItems} (non-negative integers), {@code pattern}
 * (through the same bounded matcher as the validator, {@link BoundedRegex}'s budget), and the
 * annotations {@code description}, {@code title}, {@code default}, {@code examples},
 * {@code $comment}, {@code deprecated}, {@code format} (never asserted) and {@code $schema} (the
 * 2020-12 URI only). Anything else anywhere in the schema (another keyword, a boolean subschema, an
 * {@code additionalProperties} schema, an {@code enum} or {@code const} holding an object or an
 * array, a number that is not finite, a {@code type} naming both {@code integer} and {@code number}
 * beside a bound) makes {@link #compile} return empty, and the caller validates with networknt.
 *
 * <p><b>Which violation is first.</b> Within one subschema the keywords run in networknt's order:
 * {@code type}, then {@code properties}, then every other keyword in the order the schema declares
 * it. {@code properties} visits the declared properties in schema order, {@code required} its names
 * in array order, {@code additionalProperties} reports the first undeclared property in the
 * arguments' order, {@code items} the elements by index. The walk is depth-first and stops at the
 * first violation.
 *
 * <p><b>Semantics</b>, each as networknt 3.0.9 has it: {@code 1.0} is an integer; a number too large
 * for a double (Jackson reads {@code 1e400} as infinity) is neither a number nor an integer and is
 * skipped by the bounds; lengths count code points; numbers compare (bounds, {@code enum},
 * {@code const}) by their decimal value, a double by the shortest decimal Java prints for it; an
 * integer bound on an {@code integer} property refuses a floating-point value outside the
 * {@code long} range (networknt cannot convert it and the executor reports the arguments as too
 * complex, so this does too); a pattern over its budget is reported as too complex, like the
 * executor does.
 *
 * <p>Immutable and thread-safe. A pattern keeps one matcher per thread, emptied after each use.
 */
public final class CompiledSchema {
    private static final String SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema";
    private static final Set<String> ANNOTATIONS = Set.of(
            "description", "title", "default", "examples", "$comment", "deprecated", "format");

    private static final int OBJECT = 1;
    private static final int ARRAY = 1 << 1;
    private static final int STRING = 1 << 2;
    private static final int NUMBER = 1 << 3;
    private static final int INTEGER = 1 << 4;
    private static final int BOOLEAN = 1 << 5;
    private static final int NULL = 1 << 6;
    /** A number too large for a double: networknt's "unknown" type. */
    private static final int NON_FINITE = 1 << 7;

    private final Subschema root;

    private CompiledSchema(Subschema root) {
        this.root = root;
    }

    /**
     * @param schema a parsed argument schema; never {@code null}
     * @return the compiled schema, or empty if the schema uses anything outside the subset (then the
     *     caller validates with networknt)
     */
    public static Optional<CompiledSchema> compile(JsonNode schema) {
        Objects.requireNonNull(schema, "schema");
        try {
            Subschema root = Subschema.compile(schema, 0);
            return root == null ? Optional.empty() : Optional.of(new CompiledSchema(root));
        } catch (RuntimeException e) {
            return Optional.empty(); // anything unexpected in a schema is networknt's to judge
        }
    }

    /**
     * Validates arguments. Allocates nothing when they are valid, unless a number in them is a
     * {@code BigInteger}, {@code BigDecimal} or {@code float} node compared with a bound or constant.
     *
     * <p>Never throws for anything in the arguments: what would make a validator throw is reported as
     * "too complex", in the executor's words.
     *
     * @param arguments the parsed arguments; never {@code null}
     * @return {@code null} when the arguments are valid; otherwise the {@code args_invalid} detail for
     *     the first violation, in the executor's form: {@code $.tags[1]: fails "pattern" ("^[a-z]+$")}
     */
    public String firstViolation(JsonNode arguments) {
        Objects.requireNonNull(arguments, "arguments");
        Violation v;
        try {
            v = root.check(arguments);
        } catch (RuntimeException | StackOverflowError e) {
            v = Violation.tooComplex(e.getClass().getSimpleName()); // as the executor reports a validator that threw
        }
        return v == null ? null : v.describe();
    }

    /** The class of an instance as networknt's type check sees it; integral numbers are also numbers. */
    private static int classify(JsonNode node) {
        JsonNodeType type = node.getNodeType();
        switch (type) {
            case OBJECT:
                return OBJECT;
            case ARRAY:
                return ARRAY;
            case STRING:
            case BINARY:
            case POJO:
                return STRING;
            case BOOLEAN:
                return BOOLEAN;
            case NULL:
                return NULL;
            case NUMBER:
                if (node.isIntegralNumber()) {
                    return INTEGER | NUMBER;
                }
                if (nonFinite(node)) {
                    return NON_FINITE;
                }
                return node.canConvertToExactIntegral() ? INTEGER | NUMBER : NUMBER;
            default:
                return 0;
        }
    }

    private static boolean nonFinite(JsonNode node) {
        return node.isFloatingPointNumber() && !node.isBigDecimal() && !node.isBigInteger()
                && !Double.isFinite(node.doubleValue());
    }

    private static boolean isString(JsonNode node) {
        JsonNodeType t = node.getNodeType();
        return t == JsonNodeType.STRING || t == JsonNodeType.BINARY || t == JsonNodeType.POJO;
    }

    /** Thrown at compile time when the schema leaves the subset. */
    private static final class Outside extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Outside() {
            super(null, null, false, false);
        }
    }

    private static Outside outside() {
        return new Outside();
    }

    /** One compiled subschema: its keyword checks in evaluation order. */
    private static final class Subschema {
        private final Check[] checks;

        private Subschema(Check[] checks) {
            this.checks = checks;
        }

        static Subschema compile(JsonNode schema, int depth) {
            if (!schema.isObject() || depth > Json.MAX_DEPTH) {
                throw outside();
            }
            JsonNode type = schema.get("type");
            int mask = type == null ? 0 : typeMask(type);
            boolean integerTyped = (mask & INTEGER) != 0;
            boolean bounded = schema.has("minimum") || schema.has("maximum")
                    || schema.has("exclusiveMinimum") || schema.has("exclusiveMaximum");
            if (bounded && integerTyped && (mask & NUMBER) != 0) {
                throw outside(); // networknt truncates a fractional number towards an integer bound here
            }
            JsonNode properties = schema.get("properties");
            List<Check> checks = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : schema.properties()) {
                String keyword = e.getKey();
                JsonNode value = e.getValue();
                Check check;
                switch (keyword) {
                    case "type":
                        check = new TypeCheck(mask, value);
                        break;
                    case "properties":
                        check = PropertiesCheck.compile(value, depth);
                        break;
                    case "required":
                        check = RequiredCheck.compile(value);
                        break;
                    case "additionalProperties":
                        if (!value.isBoolean()) {
                            throw outside();
                        }
                        check = value.booleanValue() ? null : ClosedCheck.compile(properties, value);
                        break;
                    case "items":
                        check = new ItemsCheck(compile(value, depth + 1), value);
                        break;
                    case "enum":
                        check = EqualsCheck.compile("enum", value, true);
                        break;
                    case "const":
                        check = EqualsCheck.compile("const", value, false);
                        break;
                    case "minimum":
                    case "maximum":
                    case "exclusiveMinimum":
                    case "exclusiveMaximum":
                        check = BoundCheck.compile(keyword, value, integerTyped);
                        break;
                    case "minLength":
                    case "maxLength":
                        check = new LengthCheck(keyword, count(value), value);
                        break;
                    case "minItems":
                    case "maxItems":
                        check = new ItemCountCheck(keyword, count(value), value);
                        break;
                    case "pattern":
                        check = PatternCheck.compile(value);
                        break;
                    case "$schema":
                        if (!value.isString() || !value.stringValue().equals(SCHEMA_2020_12)) {
                            throw outside();
                        }
                        check = null;
                        break;
                    default:
                        if (!ANNOTATIONS.contains(keyword)) {
                            throw outside();
                        }
                        check = null;
                }
                if (check != null) {
                    checks.add(check);
                }
            }
            // networknt's order: type, then properties, then the rest as declared (List.sort is stable).
            checks.sort((a, b) -> Integer.compare(rank(a.keyword), rank(b.keyword)));
            return new Subschema(checks.toArray(new Check[0]));
        }

        private static int rank(String keyword) {
            return keyword.equals("type") ? 0 : keyword.equals("properties") ? 1 : 2;
        }

        private static int typeMask(JsonNode type) {
            if (type.isString()) {
                return typeBit(type.stringValue());
            }
            if (!type.isArray() || type.isEmpty()) {
                throw outside();
            }
            int mask = 0;
            for (JsonNode t : type.values()) {
                if (!t.isString()) {
                    throw outside();
                }
                mask |= typeBit(t.stringValue());
            }
            return mask;
        }

        private static int typeBit(String name) {
            switch (name) {
                case "object":
                    return OBJECT;
                case "array":
                    return ARRAY;
                case "string":
                    return STRING;
                case "number":
                    return NUMBER;
                case "integer":
                    return INTEGER;
                case "boolean":
                    return BOOLEAN;
                case "null":
                    return NULL;
                default:
                    throw outside();
            }
        }

        /** A length or a count: a non-negative integer that fits an int, as networknt reads it. */
        private static int count(JsonNode value) {
            if (!value.isNumber() || !value.canConvertToInt() || value.intValue() < 0) {
                throw outside();
            }
            return value.intValue();
        }

        Violation check(JsonNode node) {
            for (Check c : checks) {
                Violation v = c.check(node);
                if (v != null) {
                    return v;
                }
            }
            return null;
        }
    }

    /** One keyword of one subschema. */
    private abstract static class Check {
        final String keyword;
        /** The keyword's value in the schema, shown in the detail when it is a scalar. */
        final JsonNode value;

        Check(String keyword, JsonNode value) {
            this.keyword = keyword;
            this.value = value;
        }

        /** @return {@code null} when {@code node} satisfies this keyword */
        abstract Violation check(JsonNode node);

        Violation violation() {
            return new Violation(keyword, null, value);
        }
    }

    private static final class TypeCheck extends Check {
        private final int mask;

        TypeCheck(int mask, JsonNode value) {
            super("type", value);
            this.mask = mask;
        }

        @Override
        Violation check(JsonNode node) {
            return (classify(node) & mask) != 0 ? null : violation();
        }
    }

    private static final class PropertiesCheck extends Check {
        private final String[] names;
        private final Subschema[] schemas;

        private PropertiesCheck(JsonNode value, String[] names, Subschema[] schemas) {
            super("properties", value);
            this.names = names;
            this.schemas = schemas;
        }

        static PropertiesCheck compile(JsonNode value, int depth) {
            if (!value.isObject()) {
                throw outside();
            }
            String[] names = new String[value.size()];
            Subschema[] schemas = new Subschema[value.size()];
            int i = 0;
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                names[i] = e.getKey();
                schemas[i] = Subschema.compile(e.getValue(), depth + 1);
                i++;
            }
            return new PropertiesCheck(value, names, schemas);
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isObject()) {
                return null;
            }
            for (int i = 0; i < names.length; i++) {
                JsonNode child = node.get(names[i]);
                if (child != null) {
                    Violation v = schemas[i].check(child);
                    if (v != null) {
                        return v.under(names[i]);
                    }
                }
            }
            return null;
        }
    }

    private static final class RequiredCheck extends Check {
        private final String[] names;

        private RequiredCheck(JsonNode value, String[] names) {
            super("required", value);
            this.names = names;
        }

        static RequiredCheck compile(JsonNode value) {
            if (!value.isArray()) {
                throw outside();
            }
            String[] names = new String[value.size()];
            for (int i = 0; i < names.length; i++) {
                JsonNode name = value.get(i);
                if (!name.isString()) {
                    throw outside();
                }
                names[i] = name.stringValue();
            }
            return new RequiredCheck(value, names);
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isObject()) {
                return null;
            }
            for (String name : names) {
                if (node.get(name) == null) {
                    return new Violation(keyword, name, value);
                }
            }
            return null;
        }
    }

    /**
     * {@code additionalProperties: false}. Counting the declared properties present and comparing with
     * the object's size decides without iterating the object (an iterator is an allocation); only a
     * violation walks the object's own names to find the first undeclared one.
     */
    private static final class ClosedCheck extends Check {
        private final String[] declared;
        private final Set<String> declaredSet;

        private ClosedCheck(JsonNode value, String[] declared) {
            super("additionalProperties", value);
            this.declared = declared;
            this.declaredSet = Set.of(declared);
        }

        static ClosedCheck compile(JsonNode properties, JsonNode value) {
            if (properties == null) {
                return new ClosedCheck(value, new String[0]);
            }
            if (!properties.isObject()) {
                throw outside();
            }
            return new ClosedCheck(value, properties.propertyNames().toArray(new String[0]));
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isObject()) {
                return null;
            }
            int present = 0;
            for (String name : declared) {
                if (node.get(name) != null) {
                    present++;
                }
            }
            if (present == node.size()) {
                return null;
            }
            for (String name : node.propertyNames()) {
                if (!declaredSet.contains(name)) {
                    return new Violation(keyword, name, value);
                }
            }
            throw new AssertionError("an object with more properties than it holds");
        }
    }

    private static final class ItemsCheck extends Check {
        private final Subschema items;

        ItemsCheck(Subschema items, JsonNode value) {
            super("items", value);
            this.items = items;
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isArray()) {
                return null;
            }
            for (int i = 0, n = node.size(); i < n; i++) {
                Violation v = items.check(node.get(i));
                if (v != null) {
                    return v.under(i);
                }
            }
            return null;
        }
    }

    /** {@code enum} and {@code const} over scalar values. */
    private static final class EqualsCheck extends Check {
        private final Set<String> strings;
        private final SchemaNumber[] numbers;
        private final boolean allowsTrue;
        private final boolean allowsFalse;
        private final boolean allowsNull;

        private EqualsCheck(String keyword, JsonNode value, Set<String> strings, SchemaNumber[] numbers,
                boolean allowsTrue, boolean allowsFalse, boolean allowsNull) {
            super(keyword, value);
            this.strings = strings;
            this.numbers = numbers;
            this.allowsTrue = allowsTrue;
            this.allowsFalse = allowsFalse;
            this.allowsNull = allowsNull;
        }

        static EqualsCheck compile(String keyword, JsonNode value, boolean isEnum) {
            List<JsonNode> allowed = new ArrayList<>();
            if (isEnum) {
                if (!value.isArray() || value.isEmpty()) {
                    throw outside();
                }
                for (JsonNode a : value.values()) {
                    allowed.add(a);
                }
            } else {
                allowed.add(value);
            }
            Set<String> strings = new HashSet<>();
            List<SchemaNumber> numbers = new ArrayList<>();
            boolean t = false;
            boolean f = false;
            boolean n = false;
            for (JsonNode a : allowed) {
                if (a.isString()) {
                    strings.add(a.stringValue());
                } else if (a.isNumber()) {
                    numbers.add(SchemaNumber.of(a));
                } else if (a.isBoolean()) {
                    t |= a.booleanValue();
                    f |= !a.booleanValue();
                } else if (a.isNull()) {
                    n = true;
                } else {
                    throw outside(); // containers: networknt's equality there is its own, leave it to networknt
                }
            }
            return new EqualsCheck(keyword, value, Set.copyOf(strings), numbers.toArray(new SchemaNumber[0]), t, f, n);
        }

        @Override
        Violation check(JsonNode node) {
            switch (node.getNodeType()) {
                case STRING:
                case BINARY:
                case POJO:
                    return strings.contains(node.asString()) ? null : violation();
                case NUMBER:
                    for (SchemaNumber n : numbers) {
                        if (n.equalTo(node)) {
                            return null;
                        }
                    }
                    return violation();
                case BOOLEAN:
                    return (node.booleanValue() ? allowsTrue : allowsFalse) ? null : violation();
                case NULL:
                    return allowsNull ? null : violation();
                default:
                    return violation();
            }
        }
    }

    /**
     * A finite number from the schema, with what an allocation-free comparison needs. The reference
     * value is its decimal as networknt reads it, {@code new BigDecimal(node.asString())}; a double
     * instance is read as {@code BigDecimal.valueOf(d)}, the decimal Java prints for it.
     */
    private static final class SchemaNumber {
        private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
        private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

        final BigDecimal exact;
        /** -1 below the long range, +1 above it, 0 within it. */
        private final int outsideLong;
        /** The floor, when within the long range. */
        private final long floor;
        private final boolean integral;
        /** The double nearest the value, and how the decimal of that double compares with the value. */
        private final double nearest;
        private final int nearestDecimalVersusExact;

        private SchemaNumber(BigDecimal exact) {
            this.exact = exact;
            this.outsideLong = exact.compareTo(LONG_MIN) < 0 ? -1 : exact.compareTo(LONG_MAX) > 0 ? 1 : 0;
            BigDecimal floored = exact.setScale(0, java.math.RoundingMode.FLOOR);
            this.floor = outsideLong == 0 ? floored.longValueExact() : 0;
            this.integral = floored.compareTo(exact) == 0;
            this.nearest = exact.doubleValue();
            this.nearestDecimalVersusExact = Double.isFinite(nearest)
                    ? Integer.signum(BigDecimal.valueOf(nearest).compareTo(exact)) : 0;
        }

        static SchemaNumber of(JsonNode schemaNumber) {
            if (nonFinite(schemaNumber)) {
                throw outside();
            }
            return new SchemaNumber(new BigDecimal(schemaNumber.asString()));
        }

        /** @return the sign of {@code v - this} */
        int compareLong(long v) {
            if (outsideLong != 0) {
                return -outsideLong;
            }
            if (integral) {
                return Long.compare(v, floor);
            }
            return v <= floor ? -1 : 1;
        }

        /** @return the sign of {@code decimal(d) - this}, for a finite {@code d} */
        int compareDouble(double d) {
            // Rounding to a double is monotonic and a printed double rounds back to itself, so the doubles
            // decide unless they are equal; then both decimals are fixed and were compared at compile time.
            if (d < nearest) {
                return -1;
            }
            if (d > nearest) {
                return 1;
            }
            return nearestDecimalVersusExact;
        }

        boolean equalTo(JsonNode node) {
            NumberType kind = node.numberType();
            if (kind == NumberType.INT || kind == NumberType.LONG) {
                return compareLong(node.longValue()) == 0;
            }
            if (kind == NumberType.DOUBLE) {
                double d = node.doubleValue();
                return Double.isFinite(d) && compareDouble(d) == 0;
            }
            if (nonFinite(node)) {
                return false;
            }
            return node.decimalValue().compareTo(exact) == 0;
        }
    }

    private static final class BoundCheck extends Check {
        private final SchemaNumber bound;
        /** networknt's integer comparison: an integer bound on an {@code integer}-typed subschema. */
        private final boolean integerMode;
        private final long integerBound;
        private final boolean lower;
        private final boolean exclusive;

        private BoundCheck(String keyword, JsonNode value, SchemaNumber bound, boolean integerMode) {
            super(keyword, value);
            this.bound = bound;
            this.integerMode = integerMode;
            this.integerBound = integerMode ? value.longValue() : 0;
            this.lower = keyword.endsWith("inimum");
            this.exclusive = keyword.startsWith("exclusive");
        }

        static BoundCheck compile(String keyword, JsonNode value, boolean integerTyped) {
            if (!value.isNumber()) {
                throw outside();
            }
            return new BoundCheck(keyword, value, SchemaNumber.of(value), integerTyped && (value.isInt() || value.isLong()));
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isNumber() || nonFinite(node)) {
                return null;
            }
            NumberType kind = node.numberType();
            int sign;
            if (kind == NumberType.INT || kind == NumberType.LONG) {
                sign = bound.compareLong(node.longValue());
            } else if (integerMode) {
                if (kind == NumberType.BIG_INTEGER) {
                    sign = node.bigIntegerValue().compareTo(BigInteger.valueOf(integerBound));
                } else if (kind == NumberType.DOUBLE) {
                    double d = node.doubleValue();
                    if (!(d >= Long.MIN_VALUE && d <= Long.MAX_VALUE)) {
                        return Violation.tooComplex("JsonNodeException"); // networknt's asLong() throws
                    }
                    sign = Long.compare((long) d, integerBound);
                } else {
                    try {
                        sign = Long.compare(node.asLong(), integerBound);
                    } catch (RuntimeException e) {
                        return Violation.tooComplex(e.getClass().getSimpleName());
                    }
                }
            } else if (kind == NumberType.DOUBLE) {
                sign = bound.compareDouble(node.doubleValue());
            } else {
                try {
                    sign = new BigDecimal(node.asString()).compareTo(bound.exact);
                } catch (RuntimeException e) {
                    return Violation.tooComplex(e.getClass().getSimpleName());
                }
            }
            boolean crosses = lower ? (exclusive ? sign <= 0 : sign < 0) : (exclusive ? sign >= 0 : sign > 0);
            return crosses ? violation() : null;
        }
    }

    private static final class LengthCheck extends Check {
        private final int limit;
        private final boolean min;

        LengthCheck(String keyword, int limit, JsonNode value) {
            super(keyword, value);
            this.limit = limit;
            this.min = keyword.equals("minLength");
        }

        @Override
        Violation check(JsonNode node) {
            if (!isString(node)) {
                return null;
            }
            String s = node.asString();
            if (!min && s.length() <= limit) {
                return null; // a string has no more code points than chars
            }
            int codePoints = s.codePointCount(0, s.length());
            return (min ? codePoints < limit : codePoints > limit) ? violation() : null;
        }
    }

    private static final class ItemCountCheck extends Check {
        private final int limit;
        private final boolean min;

        ItemCountCheck(String keyword, int limit, JsonNode value) {
            super(keyword, value);
            this.limit = limit;
            this.min = keyword.equals("minItems");
        }

        @Override
        Violation check(JsonNode node) {
            if (!node.isArray()) {
                return null;
            }
            int size = node.size();
            return (min ? size < limit : size > limit) ? violation() : null;
        }
    }

    /**
     * {@code pattern}, compiled as {@link BoundedRegex} compiles it and run under the same budget of
     * character reads, through a matcher and a view kept per thread so a match allocates nothing.
     */
    private static final class PatternCheck extends Check {
        private final ThreadLocal<Scan> scans;

        private PatternCheck(JsonNode value, Pattern pattern) {
            super("pattern", value);
            this.scans = ThreadLocal.withInitial(() -> new Scan(pattern));
        }

        static PatternCheck compile(JsonNode value) {
            if (!value.isString()) {
                throw outside();
            }
            Pattern pattern = Pattern.compile(RegularExpressions.replaceLongformCharacterProperties(
                    RegularExpressions.replaceDollarAnchors(value.stringValue())));
            return new PatternCheck(value, pattern);
        }

        @Override
        Violation check(JsonNode node) {
            if (!isString(node)) {
                return null;
            }
            String s = node.asString();
            Scan scan = scans.get();
            try {
                return scan.find(s) ? null : violation();
            } catch (RuntimeException | StackOverflowError e) { // the budget, or a pattern recursing too deep
                return Violation.tooComplex(e.getClass().getSimpleName());
            } finally {
                scan.release();
            }
        }
    }

    /** One thread's matcher for one pattern, over a budgeted view it re-points at each input. */
    private static final class Scan {
        private final View view = new View();
        private final Matcher matcher;

        Scan(Pattern pattern) {
            this.matcher = pattern.matcher(view);
        }

        boolean find(String s) {
            view.text = s;
            view.offset = 0;
            view.length = s.length();
            view.budget.remaining = BoundedRegex.READS_FLOOR + BoundedRegex.READS_PER_CHAR * s.length();
            matcher.reset(view);
            return matcher.find();
        }

        void release() {
            view.text = ""; // a thread-local must not keep the model's last string alive
            view.length = 0;
            matcher.reset(view);
        }
    }

    /** What is left of one match's budget, shared by a view and its subsequences. */
    private static final class Budget {
        long remaining;
    }

    /** A read-only view of a string that fails once it has been read too often, as {@link BoundedRegex}'s. */
    private static final class View implements CharSequence {
        String text = "";
        int offset;
        int length;
        final Budget budget;

        View() {
            this.budget = new Budget();
        }

        private View(String text, int offset, int length, Budget budget) {
            this.text = text;
            this.offset = offset;
            this.length = length;
            this.budget = budget;
        }

        @Override
        public char charAt(int index) {
            if (--budget.remaining < 0) {
                throw new BoundedRegex.BudgetExceeded();
            }
            return text.charAt(offset + index);
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new View(text, offset + start, end - start, budget);
        }

        @Override
        public String toString() {
            return text.substring(offset, offset + length);
        }
    }

    /** The first violation, and the instance path to it, gathered as the walk unwinds. */
    private static final class Violation {
        private static final int MAX_SEGMENTS = 16;
        private final String keyword;
        private final String property;
        private final JsonNode expected;
        private final String tooComplex;
        /** Path segments, innermost first: a {@code String} name or an {@code Integer} index. */
        private final List<Object> reversedPath = new ArrayList<>(4);

        Violation(String keyword, String property, JsonNode expected) {
            this(keyword, property, expected, null);
        }

        private Violation(String keyword, String property, JsonNode expected, String tooComplex) {
            this.keyword = keyword;
            this.property = property;
            this.expected = expected;
            this.tooComplex = tooComplex;
        }

        /** The executor's text for a validation that failed by exception rather than by a keyword. */
        static Violation tooComplex(String cause) {
            return new Violation(null, null, null, "the arguments are too complex to validate (" + cause + ")");
        }

        Violation under(String name) {
            reversedPath.add(name);
            return this;
        }

        Violation under(int index) {
            reversedPath.add(index);
            return this;
        }

        /** The same text the executor builds from a networknt error. */
        String describe() {
            if (tooComplex != null) {
                return tooComplex;
            }
            StringBuilder b = new StringBuilder(128).append('$');
            Object[] path = reversedPath.toArray();
            int n = Math.min(path.length, MAX_SEGMENTS);
            for (int i = 0; i < n; i++) {
                Object element = path[path.length - 1 - i];
                if (element instanceof Integer index) {
                    b.append('[').append(index.intValue()).append(']');
                } else {
                    b.append('.').append(Text.clip(String.valueOf(element), 64));
                }
            }
            b.append(": fails \"").append(keyword).append('"');
            if (property != null) {
                b.append(" for property '").append(Text.clip(property, 64)).append('\'');
            }
            if (expected != null && (expected.isString() || expected.isNumber() || expected.isBoolean())) {
                b.append(" (");
                if (expected.isString()) {
                    b.append('"').append(Text.clip(expected.stringValue(), 80)).append('"');
                } else {
                    b.append(expected.isBoolean() ? String.valueOf(expected.booleanValue()) : expected.numberValue());
                }
                b.append(')');
            }
            return b.toString();
        }
    }
}
