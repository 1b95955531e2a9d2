import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.dynamodb.services.local.shared.mapper.DynamoDbObjectMapper;

/**
 * DynamoDB Local parses its table's schema from JSON on every request: a write reads the table's
 * schema (TableSchemaInfo) and its stream's (StreamInfo) out of SQLite and deserializes both,
 * through a builder-pattern deserializer that works by reflection. On this project's table (ten
 * indexes) that parse was 43 % of the emulator's Java samples (a JFR recording of a test-like
 * load), and caching it cuts the emulator's CPU by about a third (CONTRIBUTING, "CI: where the
 * time goes").
 *
 * The cache is keyed by the stored bytes, so a schema that changes (UpdateTimeToLive, a new index)
 * is a new key, and every hit is a deep copy: the emulator mutates what it parsed (UpdateTimeToLive
 * sets the TTL attribute on its TableSchemaInfo before writing it back), and two databases holding
 * the same table definition share a key. The AWS SDK's model classes inside are immutable and are
 * shared; the emulator's own classes, lists, sets and maps are copied, aliasing kept.
 *
 * Installed by replacing the two classes' static MAPPER before any request (sun.misc.Unsafe: the
 * fields are static final). Where that fails (a jar whose internals moved, a Java that refuses
 * Unsafe), install() throws and the launcher starts the emulator without the cache, saying so.
 */
final class ParsedSchemaCache extends DynamoDbObjectMapper {
  private static final String EMULATOR_PACKAGE = "software.amazon.dynamodb.services.local.";
  private static final String[] MAPPER_HOLDERS = {
    EMULATOR_PACKAGE + "shared.access.sqlite.SQLiteDBAccessJob", EMULATOR_PACKAGE + "shared.access.sqlite.SQLiteDBAccess",
  };
  private static final String[] CACHED_TYPES = {
    EMULATOR_PACKAGE + "shared.access.sqlite.TableSchemaInfo", EMULATOR_PACKAGE + "shared.access.StreamInfo",
  };
  /** Distinct schemas: one per table definition and state, a handful in any run; the bound only guards against a leak. */
  private static final int MAX_ENTRIES = 1000;

  private final Set<Class<?>> cachedTypes;
  private final Map<StoredBytes, Object> parsed = new ConcurrentHashMap<>();
  private final Map<Class<?>, Field[]> fields = new ConcurrentHashMap<>();
  private final sun.misc.Unsafe unsafe;

  private ParsedSchemaCache(Set<Class<?>> cachedTypes, sun.misc.Unsafe unsafe) {
    this.cachedTypes = cachedTypes;
    this.unsafe = unsafe;
  }

  static void install() throws ReflectiveOperationException {
    Field theUnsafe = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    sun.misc.Unsafe unsafe = (sun.misc.Unsafe) theUnsafe.get(null);
    Set<Class<?>> types = new LinkedHashSet<>();
    for (String name : CACHED_TYPES) types.add(Class.forName(name));
    ParsedSchemaCache cache = new ParsedSchemaCache(types, unsafe);
    for (String holder : MAPPER_HOLDERS) {
      Field mapper = Class.forName(holder, true, ParsedSchemaCache.class.getClassLoader()).getDeclaredField("MAPPER");
      if (!DynamoDbObjectMapper.class.isAssignableFrom(mapper.getType())) {
        throw new IllegalStateException(holder + ".MAPPER is no longer a DynamoDbObjectMapper");
      }
      unsafe.putObject(unsafe.staticFieldBase(mapper), unsafe.staticFieldOffset(mapper), cache);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> T readValue(byte[] src, Class<T> type) throws java.io.IOException {
    if (!cachedTypes.contains(type)) return super.readValue(src, type);
    Object hit = parsed.get(new StoredBytes(src));
    if (hit == null) {
      hit = super.readValue(src, type);
      if (parsed.size() < MAX_ENTRIES) parsed.put(new StoredBytes(src.clone()), hit);
    }
    try {
      return (T) deepCopy(hit, new IdentityHashMap<>());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("could not copy a cached " + type.getName(), e);
    }
  }

  /**
   * A schema's stored bytes as a key. The hash samples every 7th byte (a schema is kilobytes, and
   * hashing all of it on every request cost as much as the copy); equality compares them all.
   */
  private static final class StoredBytes {
    private final byte[] bytes;
    private final int hash;

    StoredBytes(byte[] bytes) {
      this.bytes = bytes;
      int h = bytes.length;
      for (int i = 0; i < bytes.length; i += 7) h = 31 * h + bytes[i];
      this.hash = h;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof StoredBytes o && o.hash == hash && Arrays.equals(o.bytes, bytes);
    }
  }

  private Object deepCopy(Object o, IdentityHashMap<Object, Object> copies) throws ReflectiveOperationException {
    if (o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Enum<?>) return o;
    Object done = copies.get(o);
    if (done != null) return done;
    if (o instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      copies.put(o, copy);
      for (Object e : list) copy.add(deepCopy(e, copies));
      return copy;
    }
    if (o instanceof Set<?> set) {
      Set<Object> copy = new LinkedHashSet<>();
      copies.put(o, copy);
      for (Object e : set) copy.add(deepCopy(e, copies));
      return copy;
    }
    if (o instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new LinkedHashMap<>();
      copies.put(o, copy);
      for (Map.Entry<?, ?> e : map.entrySet()) copy.put(deepCopy(e.getKey(), copies), deepCopy(e.getValue(), copies));
      return copy;
    }
    Class<?> type = o.getClass();
    if (!type.getName().startsWith(EMULATOR_PACKAGE)) return o; // the AWS SDK's models: immutable
    Object copy = unsafe.allocateInstance(type);
    copies.put(o, copy);
    for (Field f : fieldsOf(type)) f.set(copy, deepCopy(f.get(o), copies));
    return copy;
  }

  private Field[] fieldsOf(Class<?> type) {
    return fields.computeIfAbsent(type, t -> {
      List<Field> all = new ArrayList<>();
      for (Class<?> c = t; c != null && c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers())) continue;
          f.setAccessible(true);
          all.add(f);
        }
      }
      return all.toArray(new Field[0]);
    });
  }
}
