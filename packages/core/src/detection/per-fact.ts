/**
 * What the tiers read off a fact, once per fact object. A run compares each fact it read with many
 * others, and a fact's entities do not change while it is read (a retirement only closes its
 * window), so each reading is kept with the fact object.
 */
import type { DetectorFact } from '@engram/db';
import { probeKeysOf } from '../language/index.ts';

/** `read`, remembered per fact object (and forgotten with it). */
export function perFact<T extends object>(read: (fact: DetectorFact) => T): (fact: DetectorFact) => T {
  const cache = new WeakMap<DetectorFact, T>();
  return (fact) => {
    let value = cache.get(fact);
    if (value === undefined) {
      value = read(fact);
      cache.set(fact, value);
    }
    return value;
  };
}

/** The keys a fact looks others up by (see probeKeysOf). */
export const probesOf = perFact((fact) => probeKeysOf(fact.entities, fact.scope));
