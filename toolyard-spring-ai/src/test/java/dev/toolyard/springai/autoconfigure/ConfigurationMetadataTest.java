package dev.toolyard.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The shipped {@code spring-configuration-metadata.json}, from which IDEs complete {@code toolyard.*}. */
class ConfigurationMetadataTest {
    @Test
    void everyToolYardPropertyIsDescribedWithItsDefault() throws Exception {
        JsonNode metadata;
        try (InputStream in = ToolYardProperties.class.getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated metadata is on the class path").isNotNull();
            metadata = JsonMapper.builder().build().readTree(in);
        }
        Map<String, JsonNode> byName = new HashMap<>();
        metadata.get("properties").forEach(p -> byName.put(p.get("name").asString(), p));

        Set<String> expected = new TreeSet<>();
        for (PropertyDescriptor d : Introspector.getBeanInfo(ToolYardProperties.class, Object.class)
                .getPropertyDescriptors()) {
            expected.add("toolyard." + d.getName().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT));
        }
        assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(expected);
        byName.values().forEach(p -> assertThat(p.path("description").asString()).as(p.get("name").asString())
                .isNotBlank());
        assertThat(byName.get("toolyard.timeout").get("defaultValue").asString()).isEqualTo("30s");
        assertThat(byName.get("toolyard.max-calls-per-round").get("defaultValue").asInt()).isEqualTo(32);
        assertThat(byName.get("toolyard.egress-ceiling").get("defaultValue").asString()).isEqualTo("none");
        assertThat(byName.get("toolyard.invocation-id-key").get("defaultValue").asString())
                .isEqualTo(ToolYardProperties.DEFAULT_INVOCATION_ID_KEY);
    }
}
