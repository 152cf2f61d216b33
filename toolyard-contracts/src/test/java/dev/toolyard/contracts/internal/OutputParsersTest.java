package dev.toolyard.contracts.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OutputParsersTest {
    @Test
    void textIsWrappedAsRawOutput() throws Exception {
        assertThat(OutputParsers.parse("text", "hi\n").toString()).isEqualTo("{\"raw_output\":\"hi\\n\"}");
    }

    @Test
    void jsonAndJsonlAreParsedAndGarbageIsRefused() throws Exception {
        assertThat(OutputParsers.parse("json", "{\"a\":1}").toString()).isEqualTo("{\"a\":1}");
        assertThat(OutputParsers.parse("jsonl", "{\"a\":1}\n\n{\"a\":2}\n").toString()).isEqualTo("[{\"a\":1},{\"a\":2}]");
        assertThatThrownBy(() -> OutputParsers.parse("json", "{\"a\":1} trailing"))
                .isInstanceOf(OutputParsers.Unparseable.class);
        assertThatThrownBy(() -> OutputParsers.parse("jsonl", "{\"a\":1}\nnope")).hasMessageContaining("line 2");
    }

    @Test
    void csvHasAHeaderRowAndQuotedFields() throws Exception {
        assertThat(OutputParsers.parse("csv", "host,port\n\"a,b\",22\r\nc,\"8\"\"0\"\n").toString())
                .isEqualTo("[{\"host\":\"a,b\",\"port\":\"22\"},{\"host\":\"c\",\"port\":\"8\\\"0\"}]");
        assertThatThrownBy(() -> OutputParsers.parse("csv", "a,b\n1\n")).hasMessageContaining("row 2");
    }

    @Test
    void xmlBecomesJsonAndDoctypeOrEntityIsRefusedInAnyCase() throws Exception {
        assertThat(OutputParsers.parse("xml", "<r a=\"1\"><h ip=\"x\"/><h ip=\"y\">t</h></r>").toString())
                .isEqualTo("{\"r\":{\"a\":\"1\",\"h\":[{\"ip\":\"x\"},{\"ip\":\"y\",\"#text\":\"t\"}]}}");
        assertThatThrownBy(() -> OutputParsers.parse("xml", "<!doctype r><r/>")).hasMessageContaining("<!DOCTYPE");
        assertThatThrownBy(() -> OutputParsers.parse("xml",
                "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>"))
                .hasMessageContaining("<!DOCTYPE");
        assertThatThrownBy(() -> OutputParsers.parse("xml", "<r><!EnTiTy x 'y'></r>")).hasMessageContaining("<!ENTITY");
        assertThatThrownBy(() -> OutputParsers.parse("xml", "<r>")).hasMessageContaining("not well-formed");
    }
}
