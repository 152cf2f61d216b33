package dev.toolyard;

import static dev.toolyard.Fixtures.echo;
import static dev.toolyard.Fixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {
    private final ToolRegistry registry = new ToolRegistry();

    @Test
    void aDifferentToolUnderATakenNameThrowsNamingTheKey() {
        registry.register(spec("echo").build(), echo());
        assertThatThrownBy(() -> registry.register(spec("echo").build(), (args, ctx) -> ToolOutput.of("other")))
                .isInstanceOfSatisfying(DuplicateToolException.class, e -> assertThat(e.toolName()).isEqualTo("echo"))
                .hasMessageContaining("'echo'");
        assertThatThrownBy(() -> registry.register(spec("echo").description("other").build(), echo()))
                .isInstanceOf(DuplicateToolException.class);
    }

    @Test
    void registeringTheSameToolAgainIsANoOp() {
        ToolHandler handler = echo();
        registry.register(spec("echo").build(), handler);
        registry.register(spec("echo").build(), handler);
        assertThat(registry.names()).containsExactly("echo");
    }

    @Test
    void aLookupMissIsEmptyNeverNull() {
        assertThat(registry.lookup("nope")).isEmpty();
        assertThat(registry.lookup(null)).isEmpty();
        assertThat(registry.lookup("ECHO")).isEmpty();
    }

    @Test
    void listForPolicyFiltersByRiskAndEgressSortedByName() {
        registry.register(spec("zeta").build(), echo());
        registry.register(spec("alpha").riskClass(RiskClass.WRITE).build(), echo());
        registry.register(spec("net").egress(EgressClass.ALLOWLISTED).build(), echo());
        registry.register(spec("exec").riskClass(RiskClass.EXECUTE).build(), echo());
        assertThat(registry.listForPolicy(RiskClass.READ_ONLY, false)).extracting(ToolSpec::name).containsExactly("zeta");
        assertThat(registry.listForPolicy(RiskClass.WRITE, true)).extracting(ToolSpec::name)
                .containsExactly("alpha", "net", "zeta");
        assertThat(registry.listForPolicy(RiskClass.EXECUTE, false)).extracting(ToolSpec::name)
                .containsExactly("alpha", "exec", "zeta");
    }

    @Test
    void wireDefinitionsAreByteStableAndPinnedByAGoldenFile() throws Exception {
        registry.register(ToolSpec.builder("read_notes")
                .description("Read one note from the workspace.")
                .argsSchema("""
                    {"type":"object","properties":{"path":{"type":"string","description":"Relative path."}},
                     "required":["path"],"additionalProperties":false}""")
                .riskClass(RiskClass.READ_ONLY).egress(EgressClass.NONE).pathArg("path", PathAccess.READ).build(), echo());
        registry.register(spec("echo").build(), echo());
        String wire = registry.wireDefinitions(List.of("read_notes", "echo"));
        try (InputStream in = getClass().getResourceAsStream("/golden/wire-definitions.json")) {
            assertThat(in).as("golden file").isNotNull();
            assertThat(wire).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        assertThat(registry.wireDefinitions(List.of("echo", "read_notes"))).isEqualTo(wire);
    }

    @Test
    void wireDefinitionsOfAnUnregisteredNameFail() {
        assertThatThrownBy(() -> registry.wireDefinitions(List.of("ghost"))).hasMessageContaining("'ghost'");
    }
}
