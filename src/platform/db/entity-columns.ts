import { JsonType, ReferenceKind, type EntityData, type EntityMetadata } from '@mikro-orm/core';
import type { Em } from './orm.js';
import type { SqlWrite } from './statement-transaction.js';

/** One stored column of an entity: its name, its property, and whether it is json (bound as text and cast). */
export interface EntityColumn<T> {
  column: string;
  field: keyof T & string;
  json: boolean;
  /** A database-generated key (a serial id), which an insert leaves to the database. */
  generated: boolean;
}

const columnsByMetadata = new WeakMap<EntityMetadata, readonly EntityColumn<never>[]>();

/**
 * An entity's stored columns read off its own mapping (names, and which are json), so SQL written by hand for the hot
 * paths (a create's insert, a modification's update, a projector's row) can never miss or misname a property the
 * entity declares.
 */
export function entityColumns<T>(meta: EntityMetadata<T>): readonly EntityColumn<T>[] {
  let columns = columnsByMetadata.get(meta as EntityMetadata) as readonly EntityColumn<T>[] | undefined;
  if (!columns) {
    columns = meta.props
      .filter((prop) => prop.kind === ReferenceKind.SCALAR && prop.persist !== false)
      .map((prop) => ({
        column: prop.fieldNames[0]!,
        field: prop.name as keyof T & string,
        json: prop.customType instanceof JsonType,
        generated: Boolean(prop.primary && prop.autoincrement),
      }));
    columnsByMetadata.set(meta as EntityMetadata, columns as readonly EntityColumn<never>[]);
  }
  return columns;
}

/** A column's value as a statement binds it: json as text (cast to jsonb by the statement), the rest as is. */
export function boundValue(value: unknown, json: boolean): unknown {
  if (!json) return value;
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** The placeholder of a column's value: json is bound as text and cast. */
export function placeholder(json: boolean): string {
  return json ? '?::jsonb' : '?';
}

/** `insert into <table> (...) values (...)` of one new row: every stored column but a generated key, each given. */
export function entityInsertSql<T>(meta: EntityMetadata<T>, row: Partial<T>): SqlWrite {
  const columns = entityColumns(meta).filter((c) => !c.generated);
  const missing = columns.find((c) => row[c.field] === undefined);
  if (missing) throw new Error(`A new ${meta.className} row has no ${missing.field}`);
  return {
    sql: `insert into ${meta.tableName} (${columns.map((c) => c.column).join(', ')}) values (${columns.map((c) => placeholder(c.json)).join(', ')})`,
    params: columns.map((c) => boundValue(row[c.field], c.json)),
  };
}

/**
 * A row read by plain SQL as an entity the unit of work does not track: the ORM's own conversions (bigint, dates,
 * json), without its identity map or snapshot, for a path that writes its changes by SQL rather than a flush (a
 * tracked copy would be written again by the next flush). An entity the EntityManager already holds would be the one
 * returned, so call it on a fresh fork (a request's context), as the modifications do.
 */
export function untrackedEntity<T extends object>(em: Em, meta: EntityMetadata<T>, row: Record<string, unknown>): T {
  const data = em.getDriver().mapResult(row as EntityData<T>, meta) as EntityData<T>;
  return em.getEntityFactory().create(meta.class, data, { merge: false, convertCustomTypes: true, refresh: true }) as T;
}

/**
 * The columns of an entity that differ from its values as read, as an update of its row by its key; undefined when
 * nothing changed. The database's constraints still guard the values (a payment's amounts).
 */
export function entityUpdateSql<T extends object>(
  meta: EntityMetadata<T>,
  before: Record<string, unknown>,
  after: T,
): SqlWrite | undefined {
  const columns = entityColumns(meta);
  const key = columns.find((c) => (meta.primaryKeys as string[]).includes(c.field));
  if (!key) throw new Error(`${meta.className} has no single-column key`);
  const changed = columns.filter(({ field }) => !sameValue(before[field], after[field]));
  if (changed.length === 0) return undefined;
  return {
    sql: `update ${meta.tableName} set ${changed.map(({ column, json }) => `${column} = ${placeholder(json)}`).join(', ')} where ${key.column} = ?`,
    params: [...changed.map(({ field, json }) => boundValue(after[field], json)), after[key.field]],
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}
