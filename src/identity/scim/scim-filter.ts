import { ScimError } from './scim-error';
import { canonicalAttribute } from './scim-attribute-path';

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type ScimValue = string | number | boolean | null;

/** A parsed SCIM filter (RFC 7644 §3.4.2.2); attributes canonical (canonicalAttribute). */
export type ScimFilter =
  | { op: 'and' | 'or'; left: ScimFilter; right: ScimFilter }
  | { op: 'not'; filter: ScimFilter }
  | { op: 'pr'; attr: string }
  | { op: CompareOp; attr: string; value: ScimValue }
  /** `emails[type eq "work"]`: the inner filter's attributes are sub-attributes of `attr`. */
  | { op: 'has'; attr: string; filter: ScimFilter };

/** A PATCH path (RFC 7644 §3.5.2): `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`. */
export interface ScimPath {
  attr: string;
  filter?: ScimFilter;
  sub?: string;
}

const COMPARE = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const MAX_LENGTH = 2000;

type Token = { t: 'word'; v: string } | { t: 'str'; v: string } | { t: 'punct'; v: '(' | ')' | '[' | ']' };

function tokenize(text: string): Token[] {
  if (text.length > MAX_LENGTH) throw ScimError.invalidFilter(`a filter is at most ${MAX_LENGTH} characters`);
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
    } else if ('()[]'.includes(c)) {
      out.push({ t: 'punct', v: c as '(' });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw ScimError.invalidFilter('a string is not closed');
      try {
        out.push({ t: 'str', v: JSON.parse(text.slice(i, j + 1)) as string });
      } catch {
        throw ScimError.invalidFilter(`malformed string ${text.slice(i, j + 1)}`);
      }
      i = j + 1;
    } else {
      const m = /^[^\s()[\]"]+/.exec(text.slice(i))!;
      out.push({ t: 'word', v: m[0] });
      i += m[0].length;
    }
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
  private next(): Token {
    const t = this.tokens[this.i++];
    if (!t) throw ScimError.invalidFilter('the filter ends too early');
    return t;
  }
  private isWord(v: string): boolean {
    const t = this.peek();
    return t?.t === 'word' && t.v.toLowerCase() === v;
  }
  private expect(v: ')' | ']'): void {
    const t = this.next();
    if (t.t !== 'punct' || t.v !== v) throw ScimError.invalidFilter(`expected "${v}"`);
  }
  get done(): boolean {
    return this.i >= this.tokens.length;
  }

  or(prefix = ''): ScimFilter {
    let left = this.and(prefix);
    while (this.isWord('or')) {
      this.i++;
      left = { op: 'or', left, right: this.and(prefix) };
    }
    return left;
  }

  private and(prefix: string): ScimFilter {
    let left = this.unary(prefix);
    while (this.isWord('and')) {
      this.i++;
      left = { op: 'and', left, right: this.unary(prefix) };
    }
    return left;
  }

  private unary(prefix: string): ScimFilter {
    if (this.isWord('not')) {
      this.i++;
      const t = this.next();
      if (t.t !== 'punct' || t.v !== '(') throw ScimError.invalidFilter('"not" must be followed by "("');
      const inner = this.or(prefix);
      this.expect(')');
      return { op: 'not', filter: inner };
    }
    const t = this.next();
    if (t.t === 'punct' && t.v === '(') {
      const inner = this.or(prefix);
      this.expect(')');
      return inner;
    }
    if (t.t !== 'word') throw ScimError.invalidFilter('expected an attribute');
    const attr = prefix + canonicalFilterAttribute(t.v);
    const after = this.peek();
    if (after?.t === 'punct' && after.v === '[') {
      if (prefix) throw ScimError.invalidFilter('value filters do not nest');
      this.i++;
      const inner = this.or(`${attr}.`);
      this.expect(']');
      return { op: 'has', attr, filter: inner };
    }
    const op = this.next();
    if (op.t !== 'word') throw ScimError.invalidFilter(`expected an operator after ${t.v}`);
    const name = op.v.toLowerCase();
    if (name === 'pr') return { op: 'pr', attr };
    if (!COMPARE.has(name)) throw ScimError.invalidFilter(`unknown operator "${op.v}"`);
    return { op: name as CompareOp, attr, value: this.value() };
  }

  private value(): ScimValue {
    const t = this.next();
    if (t.t === 'str') return t.v;
    if (t.t === 'word') {
      const w = t.v.toLowerCase();
      if (w === 'true' || w === 'false') return w === 'true';
      if (w === 'null') return null;
      if (/^-?\d+(\.\d+)?$/.test(t.v)) return Number(t.v);
    }
    throw ScimError.invalidFilter('expected a value: a "string", true, false, null or a number');
  }

  /** attr, attr.sub, attr[filter], attr[filter].sub */
  path(): ScimPath {
    const t = this.next();
    if (t.t !== 'word') throw ScimError.invalidPath('expected an attribute path');
    const after = this.peek();
    if (after?.t === 'punct' && after.v === '[') {
      const attr = canonicalAttribute(t.v);
      this.i++;
      const filter = this.or(`${attr}.`);
      this.expect(']');
      const rest = this.peek();
      if (rest === undefined) return { attr, filter };
      this.i++;
      if (rest.t !== 'word' || !/^\.[A-Za-z$][\w$-]*$/.test(rest.v)) throw ScimError.invalidPath('expected ".sub-attribute" after the value filter');
      return { attr, filter, sub: rest.v.slice(1).toLowerCase() };
    }
    const full = canonicalAttribute(t.v);
    const dot = full.lastIndexOf('.');
    return dot < 0 ? { attr: full } : { attr: full.slice(0, dot), sub: full.slice(dot + 1) };
  }
}

function canonicalFilterAttribute(raw: string): string {
  try {
    return canonicalAttribute(raw);
  } catch (err) {
    throw err instanceof ScimError ? ScimError.invalidFilter(err.detail) : err;
  }
}

/** Parses `filter=` of GET /Users and /Groups; 400 invalidFilter on anything malformed. */
export function parseFilter(text: string): ScimFilter {
  const p = new Parser(tokenize(text));
  const f = p.or();
  if (!p.done) throw ScimError.invalidFilter('unexpected text after the filter');
  return f;
}

/** Parses a PATCH operation's `path`; 400 invalidPath on anything malformed. */
export function parsePath(text: string): ScimPath {
  try {
    const p = new Parser(tokenize(text));
    const path = p.path();
    if (!p.done) throw ScimError.invalidPath(`unexpected text in path "${text}"`);
    return path;
  } catch (err) {
    if (err instanceof ScimError && err.scimType === 'invalidFilter') throw ScimError.invalidPath(`path "${text}": ${err.detail}`);
    throw err;
  }
}
