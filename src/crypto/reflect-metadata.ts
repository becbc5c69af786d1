/**
 * The part of the Reflect metadata API that @peculiar/x509 needs, loaded before it.
 *
 * @peculiar/x509 registers its services with tsyringe, which refuses to load
 * unless `Reflect.getMetadata` exists and reads/writes parameter metadata through
 * `getMetadata`, `getOwnMetadata` and `defineMetadata`. x509 itself never defines
 * metadata, so a small map is all that is needed; the `reflect-metadata` package
 * does the same and more. When one is already installed this module does nothing.
 */

type MetadataKey = string | symbol;

interface ReflectMetadata {
  getMetadata?(key: MetadataKey, target: object): unknown;
  getOwnMetadata?(key: MetadataKey, target: object): unknown;
  defineMetadata?(key: MetadataKey, value: unknown, target: object): void;
  hasOwnMetadata?(key: MetadataKey, target: object): boolean;
}

const reflect = Reflect as typeof Reflect & ReflectMetadata;

if (typeof reflect.getMetadata !== "function") {
  const store = new WeakMap<object, Map<MetadataKey, unknown>>();
  const own = (key: MetadataKey, target: object): unknown => store.get(target)?.get(key);
  reflect.getOwnMetadata = own;
  reflect.hasOwnMetadata = (key, target) => store.get(target)?.has(key) ?? false;
  reflect.defineMetadata = (key, value, target) => {
    let entries = store.get(target);
    if (entries === undefined) {
      entries = new Map();
      store.set(target, entries);
    }
    entries.set(key, value);
  };
  // Like reflect-metadata: own metadata first, then up the prototype chain (inherited constructors).
  reflect.getMetadata = (key, target) => {
    for (let t: object | null = target; t !== null; t = Object.getPrototypeOf(t)) {
      if (store.get(t)?.has(key)) return own(key, t);
    }
    return undefined;
  };
}
