import java.lang.reflect.Field;

/**
 * DynamoDB Local bound to one address. The jar has no bind option (`-help` of 2026-05-28 lists
 * -port, -inMemory, -dbPath, -sharedDb, -cors, -delayTransientStatuses, -disableTelemetry,
 * -optimizeDbBeforeStartup): its Jetty server listens on every interface. This builds the server
 * the jar's own ServerRunner builds from the same arguments, sets the host of its connector before
 * it starts, and starts it (./dynamodb-loopback.ts compiles and runs it). Reflection only; a jar
 * whose internals changed fails here, loudly, rather than listening everywhere. The host is the system property dynamodb.local.host (default 127.0.0.1).
 * Before the server is built, ParsedSchemaCache takes over the parse of the table's schema (or,
 * where it cannot, says so on stderr: unlike the binding, it only makes the emulator faster).
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.local.host", "127.0.0.1");
    try {
      ParsedSchemaCache.install();
    } catch (Throwable e) {
      // Only speed is lost (a Java that refuses sun.misc.Unsafe, a jar whose internals moved): say so and serve.
      System.err.println("DynamoDB Local runs without its parsed-schema cache, slower: " + e);
    }
    Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object server = field.get(proxy);
    Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Object connector : connectors) connector.getClass().getMethod("setHost", String.class).invoke(connector, host);
    proxy.getClass().getMethod("start").invoke(proxy);
  }
}
