package dev.toolyard.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolyard.SandboxPaths;
import dev.toolyard.ToolContext;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The properties' defaults are core's, read from a built context rather than from a public constant. */
class ToolYardPropertiesDefaultsTest {
    @Test
    void theTimeoutDefaultIsTheTimeoutOfAContextBuiltWithoutOne(@TempDir Path root) {
        assertThat(new ToolYardProperties().getTimeout())
                .isEqualTo(ToolContext.of("inv-defaults", SandboxPaths.of(root)).timeout());
    }
}
