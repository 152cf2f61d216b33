package dev.toolyard.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResourceLimitsTest {
    @Test
    void theDefaultsAreSixtySecondsOneGibibyteSixtyFourMebibytesAndSixtyFourProcesses() {
        ResourceLimits d = ResourceLimits.defaults();

        assertThat(d.cpuSeconds()).isEqualTo(60);
        assertThat(d.memoryBytes()).isEqualTo(1L << 30);
        assertThat(d.fileSizeBytes()).isEqualTo(64L << 20);
        assertThat(d.processCount()).isEqualTo(64);
        assertThat(ResourceLimits.builder().build()).isEqualTo(d).hasSameHashCodeAs(d);
    }

    @Test
    void theBuilderSetsEachLimitAndLeavesTheOthersAtTheirDefaults() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(2).processCount(8).build();

        assertThat(l.cpuSeconds()).isEqualTo(2);
        assertThat(l.processCount()).isEqualTo(8);
        assertThat(l.memoryBytes()).isEqualTo(1L << 30);
        assertThat(l.fileSizeBytes()).isEqualTo(64L << 20);
        assertThat(l.toString()).isEqualTo("cpu 2 s, memory 1073741824 bytes, file size 67108864 bytes, 8 processes");
    }

    @Test
    void eachInvalidValueFailsAtBuildNamingItsParameter() {
        assertThatThrownBy(() -> ResourceLimits.builder().cpuSeconds(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("cpuSeconds must be at least 1, got 0");
        assertThatThrownBy(() -> ResourceLimits.builder().memoryBytes(ResourceLimits.MIN_MEMORY_BYTES - 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("memoryBytes must be at least 8388608");
        assertThatThrownBy(() -> ResourceLimits.builder().fileSizeBytes(-5).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("fileSizeBytes must be at least 1, got -5");
        assertThatThrownBy(() -> ResourceLimits.builder().processCount(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("processCount must be at least 1, got 0");
    }

    @Test
    void theSmallestValidValuesAreAccepted() {
        ResourceLimits l = ResourceLimits.builder().cpuSeconds(1).memoryBytes(ResourceLimits.MIN_MEMORY_BYTES)
                .fileSizeBytes(1).processCount(1).build();

        assertThat(l).isNotEqualTo(ResourceLimits.defaults());
        assertThat(l.memoryBytes()).isEqualTo(8L << 20);
    }
}
