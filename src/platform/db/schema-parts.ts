import type { Options } from '@mikro-orm/core';
import type { Migration } from '@mikro-orm/migrations';

/** An entity a module maps (a `defineEntity` result). */
export type EntityDefinition = NonNullable<Options['entities']>[number];

export interface MigrationEntry {
  /** Timestamped (`Migration<yyyymmddnnnnnn><What>`): the app runs every module's migrations in name order. */
  name: string;
  class: new (...args: ConstructorParameters<typeof Migration>) => Migration;
}
