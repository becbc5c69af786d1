/**
 * A storage (or any object) with some of its methods replaced and the rest its own, bound to it:
 * what the tests' faulty and watched storages are built from.
 */
export function storageWith<S extends object>(inner: S, overrides: Partial<S>): S {
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof S];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
