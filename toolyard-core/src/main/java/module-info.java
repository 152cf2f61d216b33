/**
 * ToolYard core: the vocabulary, the registry, the executor and the ports. It knows no process and
 * no socket.
 */
module dev.toolyard.core {
    requires transitive tools.jackson.databind;
    requires com.networknt.schema;

    exports dev.toolyard;
    exports dev.toolyard.spi;
}
