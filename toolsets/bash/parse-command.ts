import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';

/** A command line reduced to what runs without a shell: one argv per pipeline stage. */
export type ParsedCommand = { ok: true; stages: string[][] } | { ok: false; reason: string };

/** Why each shell construct is refused: none of them can run without a shell, and each can hide a second command. */
const REFUSED: Record<string, string> = {
  list: 'chaining commands (&&, ||) is not allowed',
  redirected_statement: 'redirection (<, >, >>, here-documents) is not allowed',
  file_redirect: 'redirection (<, >, >>) is not allowed',
  heredoc_redirect: 'here-documents are not allowed',
  herestring_redirect: 'here-strings are not allowed',
  command_substitution: 'command substitution ($(...) or backticks) is not allowed',
  process_substitution: 'process substitution (<(...), >(...)) is not allowed',
  subshell: 'subshells ((...)) are not allowed',
  compound_statement: 'command groups ({ ...; }) are not allowed',
  variable_assignment: 'environment assignments (VAR=value cmd) are not allowed',
  simple_expansion: 'variable expansion ($VAR) is not allowed',
  expansion: 'parameter expansion (${...}) is not allowed',
  arithmetic_expansion: 'arithmetic expansion ($((...))) is not allowed',
  ansi_c_string: "ANSI-C quoting ($'...') is not allowed",
  translated_string: 'locale quoting ($"...") is not allowed',
  negated_command: 'negation (!) is not allowed',
  function_definition: 'function definitions are not allowed',
  brace_expression: 'brace expansion is not allowed',
};

let parser: Promise<Parser> | undefined;

/** tree-sitter's bash grammar (WebAssembly): a real shell parser, loaded once per process. */
function bashParser(): Promise<Parser> {
  parser ??= (async () => {
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    const p = new Parser();
    p.setLanguage(await Language.load(wasm));
    return p;
  })();
  return parser;
}

/**
 * Parses a command line with a real shell grammar and accepts only a single command or a pipeline
 * of simple commands whose words are literals (plain, '...' or "..." without expansions). Every
 * other construct (;, &&, ||, &, redirection, $(...), backticks, subshells, VAR=x, $VAR, newlines)
 * is refused with the reason, since it cannot run without a shell and could hide another command.
 */
export async function parseCommand(text: string): Promise<ParsedCommand> {
  if (/[\n\r]/.test(text)) return { ok: false, reason: 'newlines are not allowed: one command (or pipeline) per call' };
  const p = await bashParser();
  const tree = p.parse(text);
  if (!tree) return { ok: false, reason: 'the command could not be parsed' };
  try {
    const root = tree.rootNode;
    if (root.hasError)
      return { ok: false, reason: 'the command is not valid shell syntax (unbalanced quotes or a stray character?)' };
    const top = root.children.filter((c): c is Node => c !== null && c.type !== 'comment');
    if (top.length === 0) return { ok: false, reason: 'empty command' };
    const stray = top.find((c) => !c.isNamed);
    if (stray)
      return {
        ok: false,
        reason:
          stray.type === '&'
            ? 'background jobs (&) are not allowed'
            : `chaining commands (${stray.type}) is not allowed`,
      };
    if (top.length > 1)
      return { ok: false, reason: 'more than one command is not allowed: use a pipeline (|) at most' };
    return stagesOf(top[0]!);
  } finally {
    tree.delete();
  }
}

function stagesOf(node: Node): ParsedCommand {
  if (node.type === 'command') {
    const argv = argvOf(node);
    return argv.ok ? { ok: true, stages: [argv.argv] } : argv;
  }
  if (node.type !== 'pipeline')
    return { ok: false, reason: REFUSED[node.type] ?? `shell construct "${node.type}" is not allowed` };
  const stages: string[][] = [];
  for (const child of node.children) {
    if (!child) continue;
    if (!child.isNamed) {
      if (child.type !== '|')
        return {
          ok: false,
          reason:
            child.type === '|&' ? 'piping stderr (|&) is not allowed' : `"${child.type}" is not allowed in a pipeline`,
        };
      continue;
    }
    if (child.type !== 'command')
      return {
        ok: false,
        reason: REFUSED[child.type] ?? `shell construct "${child.type}" is not allowed in a pipeline`,
      };
    const argv = argvOf(child);
    if (!argv.ok) return argv;
    stages.push(argv.argv);
  }
  return { ok: true, stages };
}

type Argv = { ok: true; argv: string[] } | { ok: false; reason: string };

function argvOf(command: Node): Argv {
  const argv: string[] = [];
  let end = -1;
  for (const child of command.children) {
    if (!child) continue;
    // bash reads 'a'\-b as one word; the grammar reads two. Words must be apart, so both read the same.
    if (child.startIndex === end)
      return {
        ok: false,
        reason: `words written together are read differently by shells: quote the whole word (${JSON.stringify(child.text)})`,
      };
    end = child.endIndex;
    const target = child.type === 'command_name' ? child.firstNamedChild : child;
    if (!target) return { ok: false, reason: 'empty command name' };
    const word = literal(target);
    if (typeof word !== 'string') return word;
    argv.push(word);
  }
  return argv.length ? { ok: true, argv } : { ok: false, reason: 'empty command' };
}

/** The literal value of a word as the shell would pass it, for words without expansions. */
function literal(node: Node): string | { ok: false; reason: string } {
  switch (node.type) {
    case 'word':
    case 'number': {
      // Unquoted text: non-ASCII here is where look-alike letters hide (кubectl, ｒm).
      if (/[^\x20-\x7e]/.test(node.text))
        return {
          ok: false,
          reason: `non-ASCII characters outside quotes are not allowed (look-alike letters?): ${JSON.stringify(node.text)}`,
        };
      return node.text.replace(/\\(.)/g, '$1');
    }
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      const bad = node.namedChildren.find((c) => c && c.type !== 'string_content');
      if (bad) return { ok: false, reason: REFUSED[bad.type] ?? `"${bad.type}" inside double quotes is not allowed` };
      return node.text.slice(1, -1).replace(/\\([$`"\\])/g, '$1');
    }
    case 'concatenation': {
      let out = '';
      for (const part of node.children) {
        if (!part) continue;
        const v = literal(part);
        if (typeof v !== 'string') return v;
        out += v;
      }
      return out;
    }
    default:
      return { ok: false, reason: REFUSED[node.type] ?? `shell construct "${node.type}" is not allowed` };
  }
}
