/**
 * ToolYard core: the vocabulary, the registry, the executor and the ports. It knows no process and
 * no socket.
 */
module dev.toolyard.core {
    requires transitive tools.jackson.databind;
    requires com.networknt.schema;

    exports dev.toolyard;
    exports dev.toolyard.spi;
    exports dev.toolyard.internal to
            dev.toolyard.sandbox,
            dev.toolyard.builtins,
            dev.toolyard.store.jdbc,
            dev.toolyard.cli,
            dev.toolyard.contracts;
}
