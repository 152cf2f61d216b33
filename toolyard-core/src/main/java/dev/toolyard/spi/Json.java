package dev.toolyard.spi;

import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one JSON mapper for model input and for specs, with limits that make every input a bounded
 * amount of work and no input deep enough to overflow a stack: nesting at most {@link #MAX_DEPTH},
 * duplicate keys refused (two parsers would disagree which one wins), trailing content refused.
 * Exported only to ToolYard's own modules. Thread-safe.
 */
public final class Json {
    /** Deepest nesting of arrays and objects accepted in arguments and schemas. */
    public static final int MAX_DEPTH = 64;

    /** The shared mapper; never {@code null}. */
    public static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_DEPTH)
                            .maxNumberLength(1000)
                            .maxStringLength(16 * 1024 * 1024)
                            .maxNameLength(4096)
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private Json() {}
}
