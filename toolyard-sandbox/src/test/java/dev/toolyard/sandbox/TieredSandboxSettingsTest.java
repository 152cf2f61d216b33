package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The defaults and bounds of a sandbox are read from the built sandbox, not from public constants. Spawns nothing. */
class TieredSandboxSettingsTest {
    @Test
    void aSandboxBuiltWithoutSettingThemReportsTheDefaultsAndOneBuiltWithThemReportsThose() {
        try (TieredSandbox plain = TieredSandbox.builder().build();
                TieredSandbox tuned = TieredSandbox.builder().outputCapBytes(4096).warm(true).warmPerWorkspace(2)
                        .warmMaxTotal(4).build()) {
            assertThat(plain.settings()).isEqualTo(new TieredSandbox.Settings(1 << 20, 0x7FFF_8000, 0x7FFF_8000, 64,
                    false, 1, 8, Duration.ofSeconds(60), 256, 64 << 20, 5));
            assertThat(tuned.settings().outputCapBytes()).isEqualTo(4096);
            assertThat(tuned.settings().warm()).isTrue();
            assertThat(tuned.settings().warmPerWorkspace()).isEqualTo(2);
            assertThat(tuned.settings().warmMaxTotal()).isEqualTo(4);
        }
    }
}
