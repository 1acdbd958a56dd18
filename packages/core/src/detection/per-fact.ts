/**
 * What the tiers read off a fact, once per fact object. A run compares each fact it read with many
 * others, pair by pair and step by step, and a fact's text and entities do not change while it is
 * read (a retirement only closes its window), so each reading is kept with the fact object.
 */
import type { DetectorFact } from '@engram/db';
import { probeKeysOf } from '../facts/entities.ts';
import { NO_WORDS } from '../facts/meaning.ts';

/** `read`, remembered per fact object (and forgotten with it). */
export function perFact<T extends object>(read: (fact: DetectorFact) => T): (fact: DetectorFact) => T {
  const cache = new WeakMap<DetectorFact, T>();
  return (fact) => {
    // One lookup for what was read (every pair a run judges asks); a reading is an object, never undefined.
    let value = cache.get(fact);
    if (value === undefined) {
      value = read(fact);
      cache.set(fact, value);
    }
    return value;
  };
}

/** A set of these words, or the shared empty set (NO_WORDS) when there are none: readings are never changed once made. */
export function wordSet(words: Iterable<string>): ReadonlySet<string> {
  const set = new Set(words);
  return set.size === 0 ? NO_WORDS : set;
}

/** The keys of what a fact depends on or denies (see probeKeysOf). */
export const probesOf = perFact((fact) => probeKeysOf(fact.entities));
