/**
 * Syntax tree → canonical query text: lower-case field names, `-` for negation, a space for AND,
 * ` OR `, and parentheses around every nested AND/OR group, so the text means the same to a
 * parser without precedence (a real Carbon Black server included). parseQuery(serialize(t))
 * gives t back, positions aside, for every tree parseQuery produces.
 */
import type { QueryNode, RangeBound } from './ast.js';
import { FIELD_NAME, isEscapable, isSpace, QUOTES } from './lexer.js';

export function serialize(node: QueryNode): string {
  return node.kind === 'all' ? '' : write(node);
}

function write(node: QueryNode): string {
  switch (node.kind) {
    case 'all':
      return '*:*';
    case 'and':
      return node.children.map(operand).join(' ');
    case 'or':
      return node.children.map(operand).join(' OR ');
    case 'not':
      return `-${node.child.kind === 'term' || node.child.kind === 'exists' || node.child.kind === 'range' ? write(node.child) : `(${write(node.child)})`}`;
    case 'exists':
      return `${node.field}:*`;
    case 'range':
      return `${node.field}:[${bound(node.lower)} TO ${bound(node.upper)}]`;
    case 'term': {
      const value = node.quoted ? phrase(node.value) : word(node.value, node.field === null);
      return node.field === null ? value : `${node.field}:${value}`;
    }
  }
}

function operand(node: QueryNode): string {
  return node.kind === 'and' || node.kind === 'or' ? `(${write(node)})` : write(node);
}

function bound(value: RangeBound | null): string {
  if (value === null) return '*';
  return value.quoted ? phrase(value.value) : word(value.value, false);
}

/** A backslash stays single unless the lexer would read it as an escape. */
function backslash(value: string, index: number): string {
  const next = value[index + 1];
  return next === undefined || isEscapable(next) ? '\\\\' : '\\';
}

function phrase(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    out += char === '\\' ? backslash(value, i) : QUOTES.has(char) ? `\\${char}` : char;
  }
  return `${out}"`;
}

/**
 * An unquoted word. In a bare word a colon is escaped when what precedes it looks like a field
 * name; after `field:` colons need no escape.
 */
function word(value: string, bare: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (char === '\\') out += backslash(value, i);
    else if (isSpace(char) || char === '(' || char === ')' || QUOTES.has(char)) out += `\\${char}`;
    else if (char === ':' && bare && FIELD_NAME.test(value.slice(0, i))) out += '\\:';
    else out += char;
  }
  return out;
}
