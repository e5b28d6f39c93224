/**
 * no-silent-catch: an error may be dropped on purpose, but never silently. A handler that throws the error away
 * (`.catch(() => undefined)`, `.catch(() => {})`, `.catch(() => null)`, `.then(ok, () => [])`, `catch {}`) needs a
 * comment saying why: inside the handler, on the line of the `catch`, or on the line just above it.
 *
 * A handler "throws the error away" when it does not read its error parameter and its whole body is a constant:
 * an empty block, `undefined`, `void …`, a literal, or an empty array or object. A handler that logs, rethrows or
 * returns something computed is left alone.
 */

/** @param {import('estree').Node} node */
function isConstant(node) {
  switch (node.type) {
    case 'Literal':
      return true;
    case 'Identifier':
      return node.name === 'undefined';
    case 'UnaryExpression':
      return node.operator === 'void';
    case 'ArrayExpression':
      return node.elements.length === 0;
    case 'ObjectExpression':
      return node.properties.length === 0;
    default:
      return false;
  }
}

/** The body of a function that drops its error: an empty block or a constant expression. */
function dropsError(body) {
  if (body.type === 'BlockStatement') return body.body.length === 0;
  return isConstant(body);
}

/** A function whose parameters are all unused (none, or only `_`-style names nothing reads). */
function ignoresParams(fn, sourceCode) {
  return fn.params.every((param) => {
    if (param.type !== 'Identifier') return false;
    const variable = sourceCode.getDeclaredVariables(fn).find((v) => v.name === param.name);
    return !variable || variable.references.length === 0;
  });
}

/** Statements: a comment just above one that holds the handler explains it. */
const STATEMENT = /(Statement|Declaration)$/;
/** Where the search for an enclosing statement stops: a comment above a block or a function explains more than one catch. */
const BOUNDARY = new Set([
  'BlockStatement',
  'StaticBlock',
  'Program',
  'ClassBody',
  'ArrowFunctionExpression',
  'FunctionExpression',
  'FunctionDeclaration',
]);

function isFunction(node) {
  return node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression';
}

/** The handler argument of `x.catch(h)` or `x.then(ok, h)`, if the call is one of those. */
function rejectionHandler(call) {
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return undefined;
  if (callee.property.name === 'catch') return { handler: call.arguments[0], anchor: callee.property };
  if (callee.property.name === 'then') return { handler: call.arguments[1], anchor: callee.property };
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Require a comment saying why wherever a catch handler drops the error it was given',
    },
    schema: [],
    messages: {
      silentPromiseCatch:
        'This {{method}} handler drops the error. Handle it, or say why it is safe to drop in a comment on this line, ' +
        'the line above or inside the handler.',
      silentCatchClause:
        'This catch block is empty. Handle the error, or say why it is safe to drop in a comment on this line, ' +
        'the line above or inside the block.',
    },
  },
  create(context) {
    const sourceCode = context.sourceCode;

    /**
     * Explained: a comment inside `inside`, on the line of `anchor`, or ending on the line just above `anchor` or
     * above the start of a statement that holds it (up to the enclosing block), so that a comment above a statement
     * still counts once a formatter has broken its call chain over several lines.
     */
    function explained(anchor, inside) {
      if (sourceCode.getCommentsInside(inside).length > 0) return true;
      const line = anchor.loc.start.line;
      const above = new Set([line - 1]);
      for (const node of sourceCode.getAncestors(anchor).reverse()) {
        if (BOUNDARY.has(node.type)) break;
        if (STATEMENT.test(node.type)) above.add(node.loc.start.line - 1);
      }
      return sourceCode
        .getAllComments()
        .some((c) => above.has(c.loc.end.line) || (c.loc.start.line <= line && c.loc.end.line >= line));
    }

    return {
      CallExpression(call) {
        const found = rejectionHandler(call);
        if (!found?.handler || !isFunction(found.handler)) return;
        const { handler, anchor } = found;
        if (!dropsError(handler.body) || !ignoresParams(handler, sourceCode)) return;
        if (explained(anchor, handler)) return;
        context.report({ node: handler, messageId: 'silentPromiseCatch', data: { method: `.${anchor.name}()` } });
      },
      CatchClause(clause) {
        if (clause.body.body.length > 0) return;
        if (explained(clause, clause.body)) return;
        context.report({ node: clause, messageId: 'silentCatchClause' });
      },
    };
  },
};

export default {
  meta: { name: 'lestrade-local' },
  rules: { 'no-silent-catch': rule },
};
