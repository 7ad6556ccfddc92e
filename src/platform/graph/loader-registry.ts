import type DataLoader from 'dataloader';
import type { Em } from '../db/orm.js';

/**
 * A per-request DataLoader declared by the domain that owns its data (`<Thing>By<Key>Loader`). The platform knows
 * only this handle, so a new domain adds loaders without editing a central list, and the request context does not
 * import any domain.
 */
export interface LoaderDefinition<K, V, C = K> {
  readonly name: string;
  create(em: Em): DataLoader<K, V, C>;
}

export function defineLoader<K, V, C = K>(name: string, create: (em: Em) => DataLoader<K, V, C>): LoaderDefinition<K, V, C> {
  return { name, create };
}

/** The loaders of one request, created on first use so a request pays only for the loaders it touches. */
export class LoaderRegistry {
  private readonly loaders = new Map<LoaderDefinition<never, unknown, never>, unknown>();

  constructor(private readonly em: Em) {}

  get<K, V, C>(definition: LoaderDefinition<K, V, C>): DataLoader<K, V, C> {
    const key = definition as unknown as LoaderDefinition<never, unknown, never>;
    let loader = this.loaders.get(key) as DataLoader<K, V, C> | undefined;
    if (!loader) {
      loader = definition.create(this.em);
      this.loaders.set(key, loader);
    }
    return loader;
  }
}
