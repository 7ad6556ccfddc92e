/**
 * A state machine as data: each state lists the states it may move to. Services guard every change with
 * `assertTransition`; the app checks every table at start, so a table naming a state that does not exist, or
 * holding a state nothing can reach, fails the boot instead of a request.
 */
export interface StateMachine<S extends string> {
  readonly name: string;
  readonly initial: S;
  readonly transitions: Readonly<Record<S, readonly S[]>>;
}

export function defineStateMachine<S extends string>(name: string, initial: S, transitions: Record<S, readonly S[]>): StateMachine<S> {
  return { name, initial, transitions };
}

export function statesOf<S extends string>(machine: StateMachine<S>): S[] {
  return Object.keys(machine.transitions) as S[];
}

export function canTransition<S extends string>(machine: StateMachine<S>, from: S, to: S): boolean {
  return machine.transitions[from]?.includes(to) ?? false;
}

/** An end state: the table names no state it may move to. */
export function isFinal<S extends string>(machine: StateMachine<S>, state: S): boolean {
  return machine.transitions[state].length === 0;
}

/** A guard against programming errors: services choose the caller-facing error before they get here. */
export function assertTransition<S extends string>(machine: StateMachine<S>, from: S, to: S): void {
  if (!canTransition(machine, from, to)) throw new Error(`Illegal ${machine.name} transition ${from} -> ${to}`);
}

/** Throws when the table names an unknown state (as the start or a target) or holds a state the start cannot reach. */
export function checkStateMachine<S extends string>(machine: StateMachine<S>): void {
  const states = new Set<string>(statesOf(machine));
  if (!states.has(machine.initial)) throw new Error(`State machine ${machine.name}: unknown initial state ${machine.initial}`);
  for (const [from, targets] of Object.entries<readonly string[]>(machine.transitions)) {
    const unknown = targets.filter((to) => !states.has(to));
    if (unknown.length > 0) throw new Error(`State machine ${machine.name}: ${from} -> unknown state ${unknown.join(', ')}`);
  }
  const reached = new Set<string>([machine.initial]);
  const queue: string[] = [machine.initial];
  while (queue.length > 0) {
    for (const to of machine.transitions[queue.shift() as S]) {
      if (!reached.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  const unreachable = [...states].filter((s) => !reached.has(s));
  if (unreachable.length > 0) throw new Error(`State machine ${machine.name}: unreachable state ${unreachable.join(', ')}`);
}

/** The boot check: every machine the app runs, before it serves anything. */
export function checkStateMachines(machines: readonly StateMachine<string>[]): void {
  for (const machine of machines) checkStateMachine(machine);
}
