package dev.toolyard.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under {@code src/test/resources/dev/toolyard/policy/golden/}. With
 * {@code -Dtoolyard.policy.regenerate=true} a mismatch rewrites the file instead of failing.
 */
final class Golden {
    private Golden() {}

    static void assertMatches(String name, String actual) throws IOException {
        String resource = "/dev/toolyard/policy/golden/" + name;
        if (Boolean.getBoolean("toolyard.policy.regenerate")) {
            Path target = Path.of("src/test/resources" + resource);
            Files.createDirectories(target.getParent());
            Files.writeString(target, actual, StandardCharsets.UTF_8);
            return;
        }
        try (InputStream in = Golden.class.getResourceAsStream(resource)) {
            assertThat(in).as("golden file %s (regenerate with -Dtoolyard.policy.regenerate=true)", resource).isNotNull();
            assertThat(actual).as("golden file %s", resource).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
