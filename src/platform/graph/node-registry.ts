import { fromGlobalId } from './relay.js';

/** Finds one node of a type by the key part of its global id, within the caller's scope (another tenant's: undefined). */
export type NodeFinder<Ctx> = (ctx: Ctx, key: string) => Promise<object | undefined>;

/** `node(id:)` over every domain's Relay nodes: each module registers the finders of its types. */
export class NodeRegistry<Ctx> {
  private readonly finders = new Map<string, NodeFinder<Ctx>>();

  register(finders: Readonly<Record<string, NodeFinder<Ctx>>>): void {
    for (const [type, finder] of Object.entries(finders)) {
      if (this.finders.has(type)) throw new Error(`Node type ${type} is registered twice`);
      this.finders.set(type, finder);
    }
  }

  async find(ctx: Ctx, id: string): Promise<(object & { __typename: string }) | null> {
    const global = fromGlobalId(id);
    const finder = global && this.finders.get(global.type);
    if (!global || !finder) return null;
    const node = await finder(ctx, global.key);
    return node ? Object.assign(node, { __typename: global.type }) : null;
  }
}
