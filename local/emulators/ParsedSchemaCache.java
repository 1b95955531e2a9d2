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
  private final Map<StoredBytes, Parsed> parsed = new ConcurrentHashMap<>();
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
    Parsed hit = parsed.get(new StoredBytes(src));
    if (hit == null) {
      Object value = super.readValue(src, type);
      // The first copy walks with an identity map: it tells whether the parse shares an object between two places (or loops).
      Copier tracking = new Copier(new IdentityHashMap<>());
      Object copy = tracking.copy(value);
      if (parsed.size() < MAX_ENTRIES) parsed.put(new StoredBytes(src.clone()), new Parsed(value, tracking.sawAlias));
      return (T) copy;
    }
    // A tree with no shared node (Jackson's parse, as measured at the first copy) is copied without the identity map.
    return (T) new Copier(hit.hasAliases ? new IdentityHashMap<>() : null).copy(hit.value);
  }

  /** A cached parse, and whether any object in it is reachable twice. */
  private record Parsed(Object value, boolean hasAliases) {}

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

  private enum Kind {
    SHARED,
    LIST,
    SET,
    MAP,
    OBJECT
  }

  /**
   * How a class is copied, decided once per class (the copy ran a class-name test and a field walk
   * per object, a third of its time): immutable values and the AWS SDK's models are shared, the
   * emulator's own classes are copied field by field through their offsets.
   */
  private final class Plan {
    final Kind kind;
    final Class<?> type;
    final long[] referenceOffsets;
    final long[] primitiveOffsets;
    final Class<?>[] primitiveTypes;

    Plan(Class<?> type) {
      this.type = type;
      if (List.class.isAssignableFrom(type)) kind = Kind.LIST;
      else if (Set.class.isAssignableFrom(type)) kind = Kind.SET;
      else if (Map.class.isAssignableFrom(type)) kind = Kind.MAP;
      else if (type.getName().startsWith(EMULATOR_PACKAGE) && !Enum.class.isAssignableFrom(type)) kind = Kind.OBJECT;
      else kind = Kind.SHARED; // String, numbers, booleans, enums, the AWS SDK's models: immutable
      List<Long> references = new ArrayList<>();
      List<Long> primitives = new ArrayList<>();
      List<Class<?>> primitiveTypeList = new ArrayList<>();
      if (kind == Kind.OBJECT) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
          for (Field f : c.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) continue;
            if (f.getType().isPrimitive()) {
              primitives.add(unsafe.objectFieldOffset(f));
              primitiveTypeList.add(f.getType());
            } else {
              references.add(unsafe.objectFieldOffset(f));
            }
          }
        }
      }
      referenceOffsets = references.stream().mapToLong(Long::longValue).toArray();
      primitiveOffsets = primitives.stream().mapToLong(Long::longValue).toArray();
      primitiveTypes = primitiveTypeList.toArray(new Class<?>[0]);
    }
  }

  /** Plans by class (a map rather than a ClassValue: under C1 alone, ClassValue's lookup was most of the copy's samples). */
  private final Map<Class<?>, Plan> plans = new ConcurrentHashMap<>();

  private Plan planOf(Class<?> type) {
    Plan plan = plans.get(type);
    return plan != null ? plan : plans.computeIfAbsent(type, Plan::new);
  }

  /** One deep copy; `copies` (null when the tree shares no node) keeps aliasing as it was. */
  private final class Copier {
    private final IdentityHashMap<Object, Object> copies;
    boolean sawAlias;

    Copier(IdentityHashMap<Object, Object> copies) {
      this.copies = copies;
    }

    Object copy(Object o) {
      if (o == null) return null;
      Plan plan = planOf(o.getClass());
      if (plan.kind == Kind.SHARED) return o;
      if (copies != null) {
        Object done = copies.get(o);
        if (done != null) {
          sawAlias = true;
          return done;
        }
      }
      switch (plan.kind) {
        case LIST -> {
          List<?> list = (List<?>) o;
          List<Object> copy = new ArrayList<>(list.size());
          remember(o, copy);
          for (Object e : list) copy.add(copy(e));
          return copy;
        }
        case SET -> {
          Set<Object> copy = new LinkedHashSet<>();
          remember(o, copy);
          for (Object e : (Set<?>) o) copy.add(copy(e));
          return copy;
        }
        case MAP -> {
          Map<Object, Object> copy = new LinkedHashMap<>();
          remember(o, copy);
          for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) copy.put(copy(e.getKey()), copy(e.getValue()));
          return copy;
        }
        default -> {
          Object copy;
          try {
            copy = unsafe.allocateInstance(plan.type);
          } catch (InstantiationException e) {
            throw new IllegalStateException("could not copy a cached " + plan.type.getName(), e);
          }
          remember(o, copy);
          copyPrimitives(plan, o, copy);
          for (long offset : plan.referenceOffsets) unsafe.putObject(copy, offset, copy(unsafe.getObject(o, offset)));
          return copy;
        }
      }
    }

    private void remember(Object original, Object copy) {
      if (copies != null) copies.put(original, copy);
    }
  }

  private void copyPrimitives(Plan plan, Object from, Object to) {
    for (int i = 0; i < plan.primitiveOffsets.length; i++) {
      long offset = plan.primitiveOffsets[i];
      Class<?> t = plan.primitiveTypes[i];
      if (t == int.class) unsafe.putInt(to, offset, unsafe.getInt(from, offset));
      else if (t == long.class) unsafe.putLong(to, offset, unsafe.getLong(from, offset));
      else if (t == boolean.class) unsafe.putBoolean(to, offset, unsafe.getBoolean(from, offset));
      else if (t == double.class) unsafe.putDouble(to, offset, unsafe.getDouble(from, offset));
      else if (t == float.class) unsafe.putFloat(to, offset, unsafe.getFloat(from, offset));
      else if (t == short.class) unsafe.putShort(to, offset, unsafe.getShort(from, offset));
      else if (t == byte.class) unsafe.putByte(to, offset, unsafe.getByte(from, offset));
      else unsafe.putChar(to, offset, unsafe.getChar(from, offset));
    }
  }
}
