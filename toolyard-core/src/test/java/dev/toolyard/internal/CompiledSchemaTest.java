package dev.toolyard.internal;

import dev.toolyard.spi.Json;
import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Each keyword of the subset, both outcomes, nested objects and arrays, the detail text, what falls
 * back, and the allocation shape of a successful validation. Every table row is also run through
 * networknt as the executor runs it, so each expectation is one both validators meet.
 */
class CompiledSchemaTest {
    /** A closed root with one property {@code v} of the given subschema. */
    private static String property(String subschema) {
        return "{\"type\":\"object\",\"properties\":{\"v\":" + subschema + "},\"additionalProperties\":false}";
    }

    private static JsonNode parse(String json) {
        return Json.MAPPER.readTree(json);
    }

    private static CompiledSchema compiled(String schema) {
        Optional<CompiledSchema> c = CompiledSchema.compile(parse(schema));
        assertThat(c).as("compiles to the fast path: %s", schema).isPresent();
        return c.get();
    }

    /** Asserts both the fast path and networknt give {@code expected} (null: valid). */
    private static void bothGive(String schema, JsonNode arguments, String expected) {
        String fast = compiled(schema).firstViolation(arguments);
        Schema validator = NetworkntValidation.validator(parse(schema));
        String reference = NetworkntValidation.firstViolation(validator, arguments);
        assertThat(reference).as("networknt on %s with %s", schema, arguments).isEqualTo(expected);
        assertThat(fast).as("fast path on %s with %s", schema, arguments).isEqualTo(expected);
    }

    private static void bothGive(String schema, String arguments, String expected) {
        bothGive(schema, parse(arguments), expected);
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // type, one name
        "{\"type\":\"string\"}                 | \"x\"                  | ",
        "{\"type\":\"string\"}                 | 5                      | `$.v: fails \"type\" (\"string\")`",
        "{\"type\":\"integer\"}                | 1                      | ",
        "{\"type\":\"integer\"}                | 1.0                    | ",
        "{\"type\":\"integer\"}                | 1e2                    | ",
        "{\"type\":\"integer\"}                | -0.0                   | ",
        "{\"type\":\"integer\"}                | 12345678901234567890   | ",
        "{\"type\":\"integer\"}                | 1.5                    | `$.v: fails \"type\" (\"integer\")`",
        "{\"type\":\"integer\"}                | 1e400                  | `$.v: fails \"type\" (\"integer\")`",
        "{\"type\":\"integer\"}                | \"1\"                  | `$.v: fails \"type\" (\"integer\")`",
        "{\"type\":\"number\"}                 | 1                      | ",
        "{\"type\":\"number\"}                 | 0.5                    | ",
        "{\"type\":\"number\"}                 | 1e400                  | `$.v: fails \"type\" (\"number\")`",
        "{\"type\":\"number\"}                 | true                   | `$.v: fails \"type\" (\"number\")`",
        "{\"type\":\"boolean\"}                | false                  | ",
        "{\"type\":\"boolean\"}                | 0                      | `$.v: fails \"type\" (\"boolean\")`",
        "{\"type\":\"null\"}                   | null                   | ",
        "{\"type\":\"null\"}                   | \"\"                   | `$.v: fails \"type\" (\"null\")`",
        "{\"type\":\"array\"}                  | []                     | ",
        "{\"type\":\"array\"}                  | {}                     | `$.v: fails \"type\" (\"array\")`",
        "{\"type\":\"object\"}                 | {\"any\":1}            | ",
        "{\"type\":\"object\"}                 | []                     | `$.v: fails \"type\" (\"object\")`",
        // type, a union: the detail has no value to show
        "{\"type\":[\"string\",\"null\"]}      | null                   | ",
        "{\"type\":[\"string\",\"null\"]}      | \"a\"                  | ",
        "{\"type\":[\"string\",\"null\"]}      | 1                      | `$.v: fails \"type\"`",
        "{\"type\":[\"integer\",\"boolean\"]}  | 2.0                    | ",
        "{\"type\":[\"integer\",\"boolean\"]}  | 2.5                    | `$.v: fails \"type\"`",
        // enum and const, scalars, numbers by value
        "{\"enum\":[\"a\",\"b\"]}              | \"b\"                  | ",
        "{\"enum\":[\"a\",\"b\"]}              | \"c\"                  | `$.v: fails \"enum\"`",
        "{\"enum\":[\"a\",1,true,null]}        | 1.0                    | ",
        "{\"enum\":[\"a\",1,true,null]}        | null                   | ",
        "{\"enum\":[\"a\",1,true,null]}        | true                   | ",
        "{\"enum\":[\"a\",1,true,null]}        | false                  | `$.v: fails \"enum\"`",
        "{\"enum\":[\"a\",1,true,null]}        | \"1\"                  | `$.v: fails \"enum\"`",
        "{\"enum\":[\"a\",1,true,null]}        | [1]                    | `$.v: fails \"enum\"`",
        "{\"enum\":[0.1, 2.50]}                | 0.10                   | ",
        "{\"enum\":[0.1, 2.50]}                | 2.5                    | ",
        "{\"enum\":[0.1, 2.50]}                | 0.1000000000000001     | `$.v: fails \"enum\"`",
        "{\"const\":\"x\"}                     | \"x\"                  | ",
        "{\"const\":\"x\"}                     | \"y\"                  | `$.v: fails \"const\" (\"x\")`",
        "{\"const\":1}                         | 1.0                    | ",
        "{\"const\":100}                       | 1e2                    | ",
        "{\"const\":1}                         | 1.5                    | `$.v: fails \"const\" (1)`",
        "{\"const\":12345678901234567890}      | 12345678901234567890   | ",
        "{\"const\":12345678901234567890}      | 1.2345678901234567890e19 | `$.v: fails \"const\" (12345678901234567890)`",
        "{\"const\":false}                     | false                  | ",
        "{\"const\":false}                     | 0                      | `$.v: fails \"const\" (false)`",
        "{\"const\":null}                      | null                   | ",
        "{\"const\":1}                         | 1e400                  | `$.v: fails \"const\" (1)`",
        // bounds
        "{\"minimum\":0}                       | 0                      | ",
        "{\"minimum\":0}                       | -1                     | `$.v: fails \"minimum\" (0)`",
        "{\"minimum\":0}                       | -0.5                   | `$.v: fails \"minimum\" (0)`",
        "{\"minimum\":0}                       | \"-1\"                 | ",
        "{\"minimum\":0}                       | -1e400                 | ",
        "{\"exclusiveMinimum\":0}              | 0                      | `$.v: fails \"exclusiveMinimum\" (0)`",
        "{\"exclusiveMinimum\":0}              | 1e-300                 | ",
        "{\"maximum\":5.5}                     | 5.5                    | ",
        "{\"maximum\":5.5}                     | 5.500000000000001      | `$.v: fails \"maximum\" (5.5)`",
        "{\"maximum\":5.5}                     | 6                      | `$.v: fails \"maximum\" (5.5)`",
        "{\"exclusiveMaximum\":2.5}            | 2.5                    | `$.v: fails \"exclusiveMaximum\" (2.5)`",
        "{\"exclusiveMaximum\":2.5}            | 2                      | ",
        "{\"minimum\":0.1}                     | 0.1                    | ",
        "{\"minimum\":0.1}                     | 0.09999999999999999    | `$.v: fails \"minimum\" (0.1)`",
        "{\"maximum\":12345678901234567890}    | 12345678901234567890   | ",
        "{\"maximum\":12345678901234567890}    | 12345678901234567891   | `$.v: fails \"maximum\" (12345678901234567890)`",
        "{\"maximum\":9223372036854775807}     | 9223372036854775808    | `$.v: fails \"maximum\" (9223372036854775807)`",
        "{\"maximum\":1e2}                     | 100                    | ",
        "{\"maximum\":1e2}                     | 101                    | `$.v: fails \"maximum\" (100.0)`",
        "{\"type\":\"integer\",\"minimum\":0}  | 3.0                    | ",
        "{\"type\":\"integer\",\"minimum\":0}  | 1e18                   | ",
        "{\"type\":\"integer\",\"maximum\":0}  | 1e18                   | `$.v: fails \"maximum\" (0)`",
        "{\"type\":\"integer\",\"minimum\":0}  | 1e19                   | the arguments are too complex to validate (JsonNodeException)",
        "{\"type\":\"integer\",\"minimum\":0}  | 99999999999999999999   | ",
        "{\"type\":\"number\",\"minimum\":0}   | 1e19                   | ",
        // lengths in code points
        "{\"maxLength\":2}                     | \"ab\"                 | ",
        "{\"maxLength\":2}                     | \"abc\"                | `$.v: fails \"maxLength\" (2)`",
        "{\"maxLength\":2}                     | \"\\ud83d\\ude00\\ud83d\\ude00\" | ",
        "{\"maxLength\":2}                     | 123                    | ",
        "{\"minLength\":2}                     | \"\\ud83d\\ude00\"     | `$.v: fails \"minLength\" (2)`",
        "{\"minLength\":2}                     | \"ab\"                 | ",
        "{\"maxLength\":2.0}                   | \"abc\"                | `$.v: fails \"maxLength\" (2.0)`",
        // item counts
        "{\"minItems\":2}                      | [1]                    | `$.v: fails \"minItems\" (2)`",
        "{\"minItems\":2}                      | [1,2]                  | ",
        "{\"maxItems\":1}                      | [1,2]                  | `$.v: fails \"maxItems\" (1)`",
        "{\"maxItems\":1}                      | \"ab\"                 | ",
        // pattern: unanchored search, networknt's dialect
        "{\"pattern\":\"^[a-z]+$\"}            | \"abc\"                | ",
        "{\"pattern\":\"^[a-z]+$\"}            | \"ab1\"                | `$.v: fails \"pattern\" (\"^[a-z]+$\")`",
        "{\"pattern\":\"b\"}                   | \"abc\"                | ",
        "{\"pattern\":\"^a$\"}                 | \"a\\n\"               | `$.v: fails \"pattern\" (\"^a$\")`",
        "{\"pattern\":\"^\\\\p{Letter}+$\"}    | \"ab\"                 | ",
        "{\"pattern\":\"^[a-z]+$\"}            | 5                      | ",
        // annotations never fail; format is not asserted
        "{\"type\":\"string\",\"description\":\"d\",\"title\":\"t\",\"default\":\"x\",\"examples\":[\"y\"],\"format\":\"email\",\"$comment\":\"c\",\"deprecated\":true} | \"no email\" | ",
    })
    void eachKeywordGivesTheSameOutcomeAndDetailAsTheExecutorsValidator(String subschema, String value, String expected) {
        bothGive(property(subschema.trim()), "{\"v\":" + value.trim() + "}", blankToNull(expected));
    }

    @Test
    void aNestedObjectReportsTheFullPathToItsViolation() {
        String schema = property("""
            {"type":"object","required":["w"],"additionalProperties":false,
             "properties":{"w":{"type":"array","items":{"type":"object","additionalProperties":false,
                                 "properties":{"n":{"type":"integer","maximum":3}}}}}}""");
        bothGive(schema, "{\"v\":{\"w\":[{\"n\":1},{\"n\":2}]}}", null);
        bothGive(schema, "{\"v\":{\"w\":[{\"n\":1},{\"n\":4}]}}", "$.v.w[1].n: fails \"maximum\" (3)");
        bothGive(schema, "{\"v\":{\"w\":[{\"n\":1},{\"m\":4}]}}", "$.v.w[1]: fails \"additionalProperties\" for property 'm' (false)");
        bothGive(schema, "{\"v\":{}}", "$.v: fails \"required\" for property 'w'");
    }

    @Test
    void requiredNamesTheFirstMissingPropertyInArrayOrder() {
        String schema = """
            {"type":"object","required":["b","a","c"],"additionalProperties":false,
             "properties":{"a":{},"b":{},"c":{}}}""";
        bothGive(schema, "{}", "$: fails \"required\" for property 'b'");
        bothGive(schema, "{\"b\":1}", "$: fails \"required\" for property 'a'");
        bothGive(schema, "{\"b\":1,\"a\":null,\"c\":[]}", null);
    }

    @Test
    void additionalPropertiesNamesTheFirstUndeclaredPropertyInTheArgumentsOrder() {
        String schema = property("{}");
        bothGive(schema, "{\"v\":1,\"x\":1,\"y\":2}", "$: fails \"additionalProperties\" for property 'x' (false)");
        bothGive(schema, "{\"y\":1,\"v\":1,\"x\":2}", "$: fails \"additionalProperties\" for property 'y' (false)");
        bothGive("{\"type\":\"object\",\"additionalProperties\":false}", "{}", null);
        bothGive("{\"type\":\"object\",\"additionalProperties\":false}", "{\"a\":1}",
                "$: fails \"additionalProperties\" for property 'a' (false)");
    }

    @Test
    void typeRunsFirstThenPropertiesThenTheRestInDeclaredOrder() {
        bothGive(property("{\"maxLength\":1,\"pattern\":\"^a+$\",\"type\":\"string\"}"), "{\"v\":\"bb\"}",
                "$.v: fails \"maxLength\" (1)");
        bothGive(property("{\"pattern\":\"^a+$\",\"maxLength\":1,\"type\":\"string\"}"), "{\"v\":\"bb\"}",
                "$.v: fails \"pattern\" (\"^a+$\")");
        bothGive(property("{\"maxLength\":1,\"type\":\"integer\"}"), "{\"v\":\"bb\"}", "$.v: fails \"type\" (\"integer\")");
        String propertiesLast = """
            {"required":["a"],"additionalProperties":false,"properties":{"b":{"type":"string"}},"type":"object"}""";
        bothGive(propertiesLast, "{\"b\":1}", "$.b: fails \"type\" (\"string\")");
        bothGive(propertiesLast, "{\"b\":\"x\"}", "$: fails \"required\" for property 'a'");
        bothGive(propertiesLast, "{\"b\":\"x\",\"a\":1}", "$: fails \"additionalProperties\" for property 'a' (false)");
    }

    @Test
    void anArrayReportsTheIndexOfItsFirstBadItem() {
        String schema = property("{\"type\":\"array\",\"maxItems\":3,\"items\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}}");
        bothGive(schema, "{\"v\":[\"a\",\"b\"]}", null);
        bothGive(schema, "{\"v\":[\"a\",\"B\",7]}", "$.v[1]: fails \"pattern\" (\"^[a-z]+$\")");
        bothGive(schema, "{\"v\":[\"a\",\"b\",\"c\",\"d\"]}", "$.v: fails \"maxItems\" (3)");
    }

    @Test
    void aPatternOverItsBudgetIsReportedAsTooComplexLikeTheExecutorDoes() {
        String schema = property("{\"type\":\"string\",\"pattern\":\"^(a+)+$\"}");
        bothGive(schema, "{\"v\":\"" + "a".repeat(5_000) + "!\"}", "the arguments are too complex to validate (BudgetExceeded)");
        bothGive(schema, "{\"v\":\"aaaa\"}", null);
    }

    @Test
    void aPatternThatRecursesPastTheStackIsReportedAsTooComplexLikeTheExecutorDoes() {
        // java.util.regex recurses once per repetition of a group; no budget is reached before the stack ends.
        String schema = property("{\"type\":\"string\",\"pattern\":\"^(a|b)*$\"}");
        bothGive(schema, "{\"v\":\"" + "ab".repeat(200_000) + "\"}", "the arguments are too complex to validate (StackOverflowError)");
        bothGive(schema, "{\"v\":\"abab\"}", null);
    }

    @Test
    void argumentsBuiltFromJavaValuesAreJudgedLikeParsedOnes() throws Exception {
        String schema = property("{\"type\":\"integer\",\"minimum\":1,\"maximum\":10,\"enum\":[1,2,10]}");
        for (Object v : List.of(2L, new BigInteger("10"), new BigDecimal("2.00"), 1.0d, 10.0f)) {
            bothGive(schema, JsonValues.toObject(Map.of("v", v)), null);
        }
        for (Object v : List.of(3L, new BigInteger("11"), new BigDecimal("2.5"), 0.0d, 12.0f)) {
            JsonNode args = JsonValues.toObject(Map.of("v", v));
            String fast = compiled(schema).firstViolation(args);
            assertThat(fast).as("%s (%s)", v, v.getClass().getSimpleName()).isNotNull()
                    .isEqualTo(NetworkntValidation.firstViolation(NetworkntValidation.validator(parse(schema)), args));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"anyOf\":[{\"type\":\"string\"}]}",
        "{\"type\":\"object\",\"patternProperties\":{\"^x\":{}}}",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":{\"type\":\"string\"}}",
        "{\"type\":\"object\",\"properties\":{\"a\":true},\"additionalProperties\":false}",
        "{\"type\":\"array\",\"items\":false}",
        "{\"type\":\"array\",\"items\":[{}]}",
        "{\"type\":\"array\",\"prefixItems\":[{}]}",
        "{\"type\":\"array\",\"uniqueItems\":true}",
        "{\"type\":\"object\",\"minProperties\":1}",
        "{\"type\":\"number\",\"multipleOf\":2}",
        "{\"enum\":[{\"a\":1}]}",
        "{\"enum\":[]}",
        "{\"const\":[1]}",
        "{\"type\":[\"integer\",\"number\"],\"minimum\":0}",
        "{\"type\":\"any\"}",
        "{\"type\":[]}",
        "{\"minimum\":\"0\"}",
        "{\"minimum\":1e400}",
        "{\"maxLength\":-1}",
        "{\"maxLength\":2.5}",
        "{\"maxLength\":3000000000}",
        "{\"pattern\":\"(\"}",
        "{\"pattern\":5}",
        "{\"required\":[1]}",
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}",
        "{\"$ref\":\"#\"}",
        "{\"readOnly\":true}",
        "{\"not\":{}}",
        "{\"if\":{},\"then\":{}}",
        "true",
        "[]",
    })
    void aSchemaOutsideTheSubsetFallsBack(String schema) {
        assertThat(CompiledSchema.compile(parse(schema))).as(schema).isEmpty();
    }

    @Test
    void networkntTruncatesAFractionAgainstAnIntegerBoundUnderIntegerOrNumberSoThatSchemaFallsBack() {
        // networknt compares through asLong() when the bound is an integer and the type names integer:
        // 2.5 passes "maximum": 2. The fast path would refuse it, so it leaves this schema to networknt.
        String schema = property("{\"type\":[\"integer\",\"number\"],\"maximum\":2}");
        assertThat(NetworkntValidation.firstViolation(NetworkntValidation.validator(parse(schema)), parse("{\"v\":2.5}")))
                .as("networknt still truncates; if this fails the subset can take this schema").isNull();
        assertThat(CompiledSchema.compile(parse(schema))).isEmpty();
        bothGive(property("{\"type\":\"number\",\"maximum\":2}"), "{\"v\":2.5}", "$.v: fails \"maximum\" (2)");
    }

    @Test
    void networkntComparesNumbersInsideContainersByValueSoContainerConstantsFallBack() {
        // Jackson's own equality says {"k":1} != {"k":1.0}; networknt (rightly) says equal. Rather than
        // re-implement its container equality, such constants stay with networknt.
        String schema = property("{\"const\":{\"k\":1}}");
        assertThat(NetworkntValidation.firstViolation(NetworkntValidation.validator(parse(schema)), parse("{\"v\":{\"k\":1.0}}")))
                .isNull();
        assertThat(parse("{\"k\":1}")).isNotEqualTo(parse("{\"k\":1.0}"));
        assertThat(CompiledSchema.compile(parse(schema))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{}",
        "{\"type\":\"object\",\"additionalProperties\":true}",
        "{\"type\":\"object\",\"properties\":{\"a\":{}}}",
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\"}",
        "{\"type\":[\"integer\",\"number\"]}",
        "{\"type\":[\"integer\",\"string\"],\"minimum\":0}",
    })
    void trivialFormsOfTheSubsetStillCompile(String schema) {
        assertThat(CompiledSchema.compile(parse(schema))).as(schema).isPresent();
    }

    @Test
    void anOpenObjectAcceptsAnyOtherPropertyAndStillChecksTheDeclaredOnes() {
        CompiledSchema open = compiled("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}");
        assertThat(open.firstViolation(parse("{\"a\":\"x\",\"b\":1}"))).isNull();
        assertThat(open.firstViolation(parse("{\"a\":1}"))).isEqualTo("$.a: fails \"type\" (\"string\")");
    }

    @Test
    void theDetailKeepsTheExecutorsCapsOnLongNamesAndDeepPaths() {
        String name = "n".repeat(100);
        StringBuilder schema = new StringBuilder();
        StringBuilder args = new StringBuilder();
        int depth = 20;
        for (int i = 0; i < depth; i++) {
            schema.append("{\"type\":\"object\",\"properties\":{\"").append(name).append("\":");
            args.append("{\"").append(name).append("\":");
        }
        schema.append("{\"type\":\"string\"}");
        args.append("1");
        for (int i = 0; i < depth; i++) {
            schema.append("},\"additionalProperties\":false}");
            args.append('}');
        }
        String expected = ("." + "n".repeat(64) + "…").repeat(16);
        bothGive(schema.toString(), args.toString(), "$" + expected + ": fails \"type\" (\"string\")");
    }

    @Test
    void aFastPathIsSafeToShareBetweenThreads() throws Exception {
        CompiledSchema schema = compiled(property("{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}"));
        JsonNode good = parse("{\"v\":\"abc\"}");
        JsonNode bad = parse("{\"v\":\"ab1\"}");
        Thread[] threads = new Thread[4];
        java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 20_000; i++) {
                    if (schema.firstViolation(good) != null || schema.firstViolation(bad) == null) {
                        wrong.incrementAndGet();
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(wrong.get()).isZero();
    }

    @Test
    void aSuccessfulValidationAllocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "this JVM cannot count bytes allocated per thread, so the allocation shape cannot be measured");
        CompiledSchema schema = compiled("""
            {"type":"object","additionalProperties":false,"required":["path","count"],
             "properties":{"path":{"type":"string","maxLength":200,"minLength":1},
                           "count":{"type":"integer","minimum":0,"maximum":10},
                           "ratio":{"type":"number","exclusiveMinimum":0,"maximum":1.5},
                           "mode":{"enum":["fast","slow",3]},
                           "flag":{"type":["boolean","null"],"const":true},
                           "tags":{"type":"array","maxItems":5,"items":{"type":"string","pattern":"^[a-z]+$"}},
                           "opts":{"type":"object","additionalProperties":false,
                                   "properties":{"deep":{"type":"boolean"}}}}}""");
        JsonNode args = parse("""
            {"path":"notes/today.md","count":3.0,"ratio":0.25,"mode":"slow","flag":true,
             "tags":["a","bc","def"],"opts":{"deep":false}}""");
        assertThat(schema.firstViolation(args)).isNull();
        for (int i = 0; i < 20_000; i++) { // warm up, so the measured loop runs compiled code
            schema.firstViolation(args);
        }
        long tid = Thread.currentThread().getId();
        int n = 10_000;
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < n; i++) {
            if (schema.firstViolation(args) != null) {
                throw new AssertionError("the arguments stopped being valid");
            }
        }
        long total = mx.getThreadAllocatedBytes(tid) - before;
        // Zero per call: the total is only what reading the counter itself may cost, well under one byte a call.
        assertThat(total).as("bytes allocated by %d successful validations", n).isLessThan(n);
    }
}
