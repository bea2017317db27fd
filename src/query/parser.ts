/**
 * The parser: tokens → syntax tree. Grammar, loosest binding first:
 *
 *   query   := or? EOF                      (empty text: everything)
 *   or      := and (OR and)*
 *   and     := unary ((AND)? unary)*        (whitespace is AND)
 *   unary   := ('-' | NOT) unary | primary
 *   primary := '(' or ')' | field value | word | phrase
 *   value   := word | phrase | range | '(' or ')'   (a field group: bare terms inside take the field)
 *
 * AND binds tighter than OR, so `a OR b c` is `a OR (b AND c)`: Carbon Black documents no
 * precedence (decision 1 of §8) and this is what users of other query languages expect.
 * Unbalanced parentheses and dangling operators are errors, as the user guide says.
 */
import type { QueryNode, Span } from './ast.js';
import { QueryError } from './errors.js';
import { tokenize, type Token } from './lexer.js';

export interface ParseLimits {
  /** Longest accepted text, in UTF-16 code units. */
  readonly maxLength?: number;
  /** Deepest nesting of parentheses and negations. */
  readonly maxDepth?: number;
}

export const DEFAULT_LIMITS = { maxLength: 65_536, maxDepth: 64 } as const;

export interface ParseOptions extends ParseLimits {
  /** Which request parameter the text came from, for error messages ("q", "cb.q.group"). */
  readonly source?: string;
}

export function parseQuery(input: string, options: ParseOptions = {}): QueryNode {
  return new Parser(input, options, null).parse();
}

/**
 * Parses the value of a `cb.q.<field>=<value>` parameter: the value is read as if it were
 * `<field>:(<value>)`, so bare terms in it take the field.
 */
export function parseFieldQuery(field: string, input: string, options: ParseOptions = {}): QueryNode {
  const span = { start: 0, end: 0 };
  return new Parser(input, options, { name: field.toLowerCase(), span }).parse();
}

interface FieldContext {
  readonly name: string;
  readonly span: Span;
}

const STARTS_CLAUSE = new Set<Token['type']>(['lparen', 'field', 'word', 'phrase', 'range', 'minus', 'not']);

class Parser {
  private readonly tokens: Token[];
  private index = 0;
  private depth = 0;
  private readonly source: string;
  private readonly maxDepth: number;

  constructor(
    input: string,
    options: ParseOptions,
    private field: FieldContext | null,
  ) {
    this.source = options.source ?? 'q';
    const maxLength = options.maxLength ?? DEFAULT_LIMITS.maxLength;
    this.maxDepth = options.maxDepth ?? DEFAULT_LIMITS.maxDepth;
    if (input.length > maxLength) {
      throw new QueryError('too_large', `Query is longer than ${maxLength} characters`, maxLength, this.source);
    }
    this.tokens = tokenize(input, this.source);
  }

  parse(): QueryNode {
    if (this.peek().type === 'eof') return { kind: 'all', span: this.peek().span };
    const node = this.parseOr();
    const next = this.peek();
    if (next.type === 'rparen') this.fail('Unbalanced ")" without a matching "("', next);
    if (next.type !== 'eof') this.fail('Unexpected token', next);
    return node;
  }

  private parseOr(): QueryNode {
    const children = [this.parseAnd()];
    while (this.peek().type === 'or') {
      this.expectClauseAfter(this.next(), 'OR');
      children.push(this.parseAnd());
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children, span: cover(children) };
  }

  private parseAnd(): QueryNode {
    const children = [this.parseUnary()];
    while (true) {
      const next = this.peek();
      if (next.type === 'eof' || next.type === 'rparen' || next.type === 'or') break;
      if (next.type === 'and') this.expectClauseAfter(this.next(), 'AND');
      children.push(this.parseUnary());
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children, span: cover(children) };
  }

  private parseUnary(): QueryNode {
    const token = this.peek();
    if (token.type !== 'minus' && token.type !== 'not') return this.parsePrimary();
    this.expectClauseAfter(this.next(), token.type === 'minus' ? '-' : 'NOT');
    const child = this.nested(token, () => this.parseUnary());
    return { kind: 'not', child, span: { start: token.span.start, end: child.span.end } };
  }

  private parsePrimary(): QueryNode {
    const token = this.next();
    switch (token.type) {
      case 'lparen':
        return this.parseGroup(token);
      case 'field':
        return this.parseFieldValue(token);
      case 'word':
      case 'phrase':
        return this.bareTerm(token);
      case 'range':
        if (this.field) return this.termFor(this.field, token);
        return this.fail('A range needs a field, as in start:[2024-01-01 TO *]', token);
      case 'rparen':
        return this.fail('Unbalanced ")" without a matching "("', token);
      case 'and':
      case 'or':
        return this.fail(`Expected a term before ${token.type.toUpperCase()}`, token);
      default:
        return this.fail('Expected a term', token);
    }
  }

  private parseGroup(open: Token): QueryNode {
    if (this.peek().type === 'eof') this.fail('Unbalanced "(" that is never closed', open);
    if (this.peek().type === 'rparen') this.fail('Empty parentheses', open);
    const inner = this.nested(open, () => this.parseOr());
    if (this.peek().type !== 'rparen') this.fail('Unbalanced "(" that is never closed', open);
    this.next();
    return inner;
  }

  private parseFieldValue(fieldToken: Extract<Token, { type: 'field' }>): QueryNode {
    const field = { name: fieldToken.name, span: fieldToken.span };
    if (this.field) {
      this.fail(`Field "${field.name}" inside the group of field "${this.field.name}"`, fieldToken);
    }
    const value = this.next();
    if (value.type === 'lparen') {
      this.field = field;
      const inner = this.parseGroup(value);
      this.field = null;
      return inner;
    }
    if (value.type === 'word' || value.type === 'phrase' || value.type === 'range') return this.termFor(field, value);
    return this.fail(`Missing value after "${field.name}:"`, fieldToken);
  }

  private bareTerm(token: Extract<Token, { type: 'word' | 'phrase' }>): QueryNode {
    if (this.field) return this.termFor(this.field, token);
    if (token.type === 'word' && (token.value === '*' || token.value === '*:*')) return { kind: 'all', span: token.span };
    return { kind: 'term', field: null, fieldSpan: null, value: token.value, quoted: token.type === 'phrase', span: token.span };
  }

  private termFor(field: FieldContext, token: Extract<Token, { type: 'word' | 'phrase' | 'range' }>): QueryNode {
    const common = { field: field.name, fieldSpan: field.span };
    if (token.type === 'range') {
      return { kind: 'range', ...common, lower: token.lower, upper: token.upper, span: token.span };
    }
    if (token.type === 'word' && token.value === '*') return { kind: 'exists', ...common, span: token.span };
    return { kind: 'term', ...common, value: token.value, quoted: token.type === 'phrase', span: token.span };
  }

  private expectClauseAfter(operator: Token, name: string): void {
    if (!STARTS_CLAUSE.has(this.peek().type)) this.fail(`Expected a term after ${name}`, operator);
  }

  private nested<T>(at: Token, parse: () => T): T {
    if (++this.depth > this.maxDepth) {
      throw new QueryError('too_large', `Query is nested deeper than ${this.maxDepth} levels`, at.span.start, this.source);
    }
    const result = parse();
    this.depth--;
    return result;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.tokens[this.index]!;
    if (token.type !== 'eof') this.index++;
    return token;
  }

  private fail(detail: string, token: Token): never {
    throw new QueryError('syntax', detail, token.span.start, this.source);
  }
}

function cover(nodes: readonly QueryNode[]): Span {
  return { start: nodes[0]!.span.start, end: nodes[nodes.length - 1]!.span.end };
}
