package dev.toolyard.otel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ExecuteToolConventionsTest {
    @Test
    void theTableOnThisPageNamesExactlyTheAttributesTheModuleWrites() throws Exception {
        Set<String> constants = new TreeSet<>();
        for (Field f : ExecuteToolConventions.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == AttributeKey.class) {
                constants.add(((AttributeKey<?>) f.get(null)).getKey());
            }
        }
        String page = Files.readString(Path.of("..", "docs", "observability.md"));
        int table = page.indexOf("| attribute | conventions | stability |");
        assertThat(table).as("docs/observability.md has the attribute table").isNotNegative();
        String rows = page.substring(table, page.indexOf("\n\n", table));
        Set<String> documented = new TreeSet<>();
        Matcher first = Pattern.compile("(?m)^\\| `([a-z_.]+)` \\|").matcher(rows);
        while (first.find()) {
            documented.add(first.group(1));
        }
        assertThat(documented).isEqualTo(constants).hasSize(13);
    }
}
