/**
 * ToolYard for LangChain4j: {@link dev.toolyard.langchain4j.ToolYardToolProvider} runs every tool call of
 * an AI service, unknown names included, through ToolYard's executor, one model turn as one round.
 *
 * <p>LangChain4j 1.19.0's jars declare no module name, so on the module path they are automatic modules
 * named after their files ({@code langchain4j}, {@code langchain4j.core}), the names required here. An
 * automatic module reads every module but can require none, so the named modules LangChain4j itself
 * needs at run time, its Jackson 2 and SLF4J, would not be resolved unless some module required them:
 * this one does, so an application on the module path needs no {@code --add-modules}.
 */
module dev.toolyard.langchain4j {
    requires transitive dev.toolyard.core;
    requires transitive langchain4j;
    requires transitive langchain4j.core;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.toolyard.langchain4j;
}
