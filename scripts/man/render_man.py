#!/usr/bin/env python3
"""Man pages and bash completion of the cudnnfe tool, written at build time.

  render_man.py --doc docs/cudnnfe-tool.md --tool path/to/cudnnfe --version 1.4.0 \
      --docs-dir /usr/share/doc/cudnnfe-tools --outdir DIR --commands info device ...

writes DIR/cudnnfe.1, DIR/cudnnfe-COMMAND.1 for each command and DIR/cudnnfe (the bash completion).

Two sources, each the only one for what it gives:
- the prose (NAME, SYNOPSIS, each command's description, graph files, exit status, environment,
  examples) is docs/cudnnfe-tool.md, a '### cudnnfe COMMAND' section for each command;
- the commands with their one-line summaries and every command's options are what the built tool
  prints ('cudnnfe --help', 'cudnnfe help COMMAND'): the man pages' OPTIONS sections and the
  completion are both made from that, so they list what the tool accepts.
A command the tool has and the document lacks (or the other way round) is an error. Plain roff
(the man macros), nothing beyond python3.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import time


def die(message):
    sys.exit('render_man.py: ' + message)


# ---------------------------------------------------------------------------------------------
# The tool's help.

class Option:
    def __init__(self, names, metavar, text):
        self.names = names  # e.g. ['-o', '--output']
        self.metavar = metavar  # e.g. 'DIR', or '' for a flag
        self.text = text


class Command:
    def __init__(self, name):
        self.name = name
        self.summary = []  # from 'cudnnfe --help' (one line per action for 'device')
        self.usage = []  # the usage lines of 'cudnnfe help COMMAND', without 'usage:'
        self.options = []
        self.actions = {}  # action -> the metavar of its first positional argument ('' if none)
        self.positional = ''  # the metavar of the first positional argument ('' if none)


# The command that runs the built tool on this machine before it (empty: run it directly).
RUNNER = []


def run_tool(tool, *args):
    try:
        result = subprocess.run([*RUNNER, tool, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, timeout=60)
    except OSError as e:
        die('cannot run %s: %s' % (tool, e))
    if result.returncode != 0:
        die('%s %s exited with %d: %s' % (tool, ' '.join(args), result.returncode, result.stderr))
    return result.stdout


def parse_top_help(text):
    """'commands:' block of 'cudnnfe --help': {name: [summaries]} in order."""
    commands = {}
    block = False
    for line in text.splitlines():
        if line.strip() == 'commands:':
            block = True
            continue
        if block:
            if not line.strip():
                break
            m = re.match(r'^  (\S+(?: [a-z]+)?)\s{2,}(.*)$', line)
            if not m:
                die('cannot read the line %r of cudnnfe --help' % line)
            words = m.group(1).split()
            commands.setdefault(words[0], []).append((' '.join(words[1:]), m.group(2).strip()))
    if not commands:
        die("'cudnnfe --help' lists no commands")
    return commands


def split_option_spec(spec):
    names, metavar = [], ''
    for part in spec.split(', '):
        words = part.split()
        names.append(words[0])
        if len(words) > 1:
            metavar = ' '.join(words[1:])
    return names, metavar


def parse_command_help(command, text):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('usage: cudnnfe '):
            command.usage.append(line[len('usage: '):].strip())
            for more in lines[i + 1:]:
                if not more.startswith(' ') or not more.strip().startswith('cudnnfe '):
                    break
                command.usage.append(more.strip())
            break
    if not command.usage:
        die("'cudnnfe help %s' has no usage line" % command.name)
    for usage in command.usage:
        rest = usage.split(None, 2)[2] if len(usage.split()) > 2 else ''  # after 'cudnnfe COMMAND'
        while True:  # optional groups and alternatives out
            stripped = re.sub(r'\[[^\[\]]*\]|\([^()]*\)', '', rest)
            if stripped == rest:
                break
            rest = stripped
        words = rest.split()
        action = ''
        if words and re.match(r'^[a-z][a-z-]*$', words[0]):
            action = words.pop(0)
        positional = ''
        skip = False
        for w in words:
            if skip or w == '...':
                skip = False
                continue
            if w.startswith('-'):
                skip = True  # and its value
                continue
            positional = w
            break
        if action:
            command.actions[action] = positional
        elif positional:
            command.positional = positional
    # The options block: a spec, then its text from one column on; deeper lines continue it.
    try:
        start = lines.index('options:') + 1
    except ValueError:
        return
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line)
    columns = {}
    for line in block:
        m = re.match(r'^  (-\S.*?\S)\s{2,}\S', line)
        if m:
            col = m.end() - 1
            columns[col] = columns.get(col, 0) + 1
    if not columns:
        die("cannot read the options of 'cudnnfe help %s'" % command.name)
    col = max(columns, key=columns.get)
    for line in block:
        if re.match(r'^  -', line):
            spec, text = line[:col].strip(), line[col:].strip()
            if not spec or not text or line[col - 1] != ' ':
                die("cannot read the option line %r of 'cudnnfe help %s'" % (line, command.name))
            names, metavar = split_option_spec(spec)
            command.options.append(Option(names, metavar, text))
        elif command.options and line[:col].strip() == '':
            command.options[-1].text += ' ' + line.strip()
        else:
            die("cannot read the option line %r of 'cudnnfe help %s'" % (line, command.name))


# ---------------------------------------------------------------------------------------------
# The document.

class Section:
    def __init__(self, level, title):
        self.level = level
        self.title = title
        self.lines = []
        self.children = []


def parse_doc(path):
    top = Section(1, '')
    current = top
    level2 = None
    fence = False
    with open(path, encoding='utf-8') as f:
        for line in f.read().splitlines():
            if line.startswith('```'):
                fence = not fence
            m = None if fence else re.match(r'^(#{1,3}) (.*)$', line)
            if m and len(m.group(1)) == 2:
                level2 = Section(2, m.group(2).strip())
                top.children.append(level2)
                current = level2
            elif m and len(m.group(1)) == 3 and level2 is not None:
                current = Section(3, m.group(2).strip())
                level2.children.append(current)
            elif m:
                top.title = m.group(2).strip()
            else:
                current.lines.append(line)
    return top


def section(doc, title):
    for s in doc.children:
        if s.title == title:
            return s
    die('docs: no "## %s" section' % title)


def doc_command(sub):
    """'cudnnfe device capture, device show' -> 'device'; None for other subsections."""
    m = re.match(r'^cudnnfe ([a-z][a-z-]*)', sub.title)
    return m.group(1) if m else None


def code_block(lines):
    """The lines of the first fenced block."""
    out, inside = [], False
    for line in lines:
        if line.startswith('```'):
            if inside:
                return out
            inside = True
        elif inside:
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# roff.

def escape_chars(text):
    text = text.replace('\\', '\\e')
    text = text.replace('\u2014', '\\(em').replace('\u2013', '\\(en').replace('\u2026', '.\\|.\\|.')
    return ''.join(c if ord(c) < 128 else '\\[u%04X]' % ord(c) for c in text)


def minus(text):
    return text.replace('-', '\\-')


class Inline:
    def __init__(self, docs_dir):
        self.docs_dir = docs_dir

    def link(self, m):
        text, target = m.group(1), m.group(2)
        if re.match(r'^[\w.-]+\.md$', target):
            path = self.docs_dir + '/' + target
            if text == target:
                return '\x01I' + path + '\x01R'
            return text + ' (\x01I' + path + '\x01R)'
        return text + ' (' + target + ')' if text != target else text

    def __call__(self, text):
        """Markdown inline text -> roff, one line."""
        out = []
        # Code spans first: nothing inside is markup.
        for i, part in enumerate(re.split(r'(`[^`]*`)', text)):
            if i % 2:
                out.append('\x01B' + minus(escape_chars(part[1:-1])) + '\x01R')
                continue
            part = re.sub(r'\[([^\]]+)\]\(([^)]+)\)', self.link, part)
            part = escape_chars(part)
            part = re.sub(r'\*\*(.+?)\*\*', '\x01B\\1\x01R', part)
            part = re.sub(r'(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])', '\x01I\\1\x01R', part)
            # Options and negative numbers: a minus sign, not a hyphen.
            part = re.sub(r'(?<![\w\\])-(?=[-\w])', '\\-', part)
            out.append(part)
        return ''.join(out).replace('\x01', '\\f')


def text_line(line):
    """A line of filled text: a leading '.' or ''' would be a request."""
    line = line.strip()
    if line.startswith(('.', "'")):
        line = '\\&' + line
    return line


def nofill(lines, out):
    out.append('.PP')
    out.append('.RS 4')
    out.append('.nf')
    for line in lines:
        line = minus(escape_chars(line))
        if line.startswith(('.', "'")):
            line = '\\&' + line
        out.append(line)
    out.append('.fi')
    out.append('.RE')


def blocks(lines, inline, out):
    """Markdown paragraphs, bullet lists, fenced code and tables -> roff."""
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith('```'):
            j = i + 1
            while j < n and not lines[j].startswith('```'):
                j += 1
            nofill(lines[i + 1:j], out)
            i = j + 1
            continue
        if line.startswith('|'):
            rows = []
            while i < n and lines[i].startswith('|'):
                cells = [c.strip() for c in lines[i].strip().strip('|').split('|')]
                if not all(re.match(r'^:?-+:?$', c) for c in cells):
                    rows.append(cells)
                i += 1
            for cells in rows[1:]:  # the first row is the header
                out.append('.TP')
                out.append(text_line(inline('**' + cells[0] + '**')))
                out.append(text_line(inline(' '.join(cells[1:]))))
            continue
        if re.match(r'^[-*] ', line):
            while i < n and re.match(r'^[-*] ', lines[i]):
                out.append('.IP \\(bu 2')
                out.append(text_line(inline(lines[i][2:])))
                i += 1
                while i < n and lines[i].startswith('  ') and lines[i].strip():
                    out.append(text_line(inline(lines[i])))
                    i += 1
            continue
        out.append('.PP')
        while i < n and lines[i].strip() and not lines[i].startswith(('```', '|')) \
                and not re.match(r'^[-*] ', lines[i]):
            out.append(text_line(inline(lines[i])))
            i += 1


def header(out, title, version, date):
    out.append('.\\" Generated by scripts/man/render_man.py from docs/cudnnfe-tool.md and the')
    out.append(".\\\" tool's help; edit those, not this file.")
    out.append('.TH %s 1 "%s" "cudnnfe %s" "User Commands"' % (title.upper(), date, version))
    out.append('.nh')  # no hyphenation: option names must stay whole
    out.append('.ad l')


def synopsis(lines, out):
    """Synopsis lines, the command in bold, each wrapped under itself."""
    out.append('.nf')
    for line in lines:
        words = line.split()
        prog = []
        while words and re.match(r'^[a-z][a-z-]*$', words[0]) and len(prog) < 3:
            prog.append(words.pop(0))
        head = '\\fB' + minus(' '.join(prog)) + '\\fR'
        width = len(' '.join(prog))
        # Keep each bracketed group whole where it fits.
        groups, depth = [], 0
        for w in words:
            if depth > 0:
                groups[-1] += ' ' + w
            else:
                groups.append(w)
            depth += w.count('[') + w.count('(') - w.count(']') - w.count(')')
        cur, cur_len = head, width
        for w in groups:
            if cur_len + 1 + len(w) > 78:
                out.append(cur)
                cur, cur_len = ' ' * (width + 1) + minus(escape_chars(w)), width + 1 + len(w)
            else:
                cur += ' ' + minus(escape_chars(w))
                cur_len += 1 + len(w)
        out.append(cur)
    out.append('.fi')


def options_section(command, out):
    out.append('.SH OPTIONS')
    for opt in command.options + [Option(['-h', '--help'], '', 'Print the help of the command and exit.')]:
        names = ', '.join('\\fB' + minus(n) + '\\fR' for n in opt.names)
        if opt.metavar:
            names += ' \\fI' + minus(escape_chars(opt.metavar)) + '\\fR'
        out.append('.TP')
        out.append(names)
        text = opt.text[0].upper() + opt.text[1:]
        if not text.endswith('.') and not text.endswith(')'):
            text += '.'
        elif text.endswith(')'):
            text += '.'
        out.append(text_line(minus_options(escape_chars(text))))
    out.append('.PP')
    out.append('Options may come before or after the arguments; \\fB\\-\\-name=value\\fR and '
               '\\fB\\-\\-name value\\fR are the same; \\fB\\-\\-\\fR ends the options.')


def minus_options(text):
    return re.sub(r'(?<![\w\\])-(?=[-\w])', '\\-', text)


def see_also(pages, out):
    out.append('.SH SEE ALSO')
    out.append(',\n'.join('.BR %s (1)' % p for p in pages))


def write_page(path, out):
    with open(path, 'w', encoding='ascii') as f:
        f.write('\n'.join(out) + '\n')


# ---------------------------------------------------------------------------------------------
# bash completion.

def value_kind(metavar):
    m = metavar.rstrip('.')
    if m == 'DIR':
        return 'dir'
    if m.endswith('.json'):
        return 'json'
    if m == 'FILE':
        return 'file'
    return ''


def completion(commands, out_path):
    names = list(commands)
    lines = [
        "# bash completion for cudnnfe(1): the commands, each command's options and their values.",
        "# Generated by scripts/man/render_man.py from the tool's own help ('cudnnfe --help',",
        "# 'cudnnfe help COMMAND'); edit those, not this file.",
        '',
        '_cudnnfe_complete_files() { # KIND WORD: KIND is file, json (and directories), dir or none',
        "    local IFS=$'\\n'",
        '    case $1 in',
        '        dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$2")) ;;',
        '        json) compopt -o filenames 2>/dev/null',
        '            COMPREPLY=($(compgen -f -X \'!*.json\' -- "$2") $(compgen -d -- "$2")) ;;',
        '        file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$2")) ;;',
        '        *) COMPREPLY=() ;;',
        '    esac',
        '}',
        '',
        '_cudnnfe() {',
        '    local cur=${COMP_WORDS[COMP_CWORD]} prev=',
        '    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}',
        '    # --name=value: bash splits the word at "=" (COMP_WORDBREAKS).',
        '    if [ "$cur" = "=" ]; then',
        '        cur=',
        '    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then',
        '        prev=${COMP_WORDS[COMP_CWORD-2]}',
        '    fi',
        '    COMPREPLY=()',
        '    if [ "$COMP_CWORD" -le 1 ]; then',
        '        if [[ $cur == -* ]]; then',
        '            COMPREPLY=($(compgen -W "--help --version" -- "$cur"))',
        '        else',
        '            COMPREPLY=($(compgen -W "%s help" -- "$cur"))' % ' '.join(names),
        '        fi',
        '        return',
        '    fi',
        '    local command=${COMP_WORDS[1]} options= values= actions= positional= action= skip=0 i word',
        '    case $command in',
        '        help)',
        '            [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "%s" -- "$cur"))' % ' '.join(names),
        '            return ;;',
    ]
    for name, c in commands.items():
        opts = [n for o in c.options for n in o.names] + ['--help']
        kinds = ['%s=%s' % (n, value_kind(o.metavar) or 'none') for o in c.options if o.metavar for n in o.names]
        lines.append('        %s)' % name)
        lines.append('            options="%s"' % ' '.join(opts))
        lines.append('            values="%s"' % ' '.join(kinds))
        if c.actions:
            lines.append('            actions="%s"' % ' '.join(c.actions))
        else:
            lines.append('            positional=%s' % (value_kind(c.positional) or 'none'))
        lines.append('            ;;')
    lines += [
        '        *) return ;;',
        '    esac',
        "    # The value of an option (values: OPTION=KIND, what the value is).",
        '    for word in $values; do',
        '        if [ "$prev" = "${word%%=*}" ]; then',
        '            _cudnnfe_complete_files "${word#*=}" "$cur"',
        '            return',
        '        fi',
        '    done',
    ]
    lines += [
        '    # The action: the first word after the command that is neither an option nor its value.',
        '    for ((i = 2; i < COMP_CWORD; i++)); do',
        '        word=${COMP_WORDS[i]}',
        '        if [ "$skip" = 1 ]; then skip=0; continue; fi',
        '        if [ "$word" = "=" ]; then skip=1; continue; fi  # --name=value',
        '        case $word in',
        '            --) ;;',
        '            -*) [[ " $values " == *" $word="* ]] && [ "${COMP_WORDS[i+1]}" != "=" ] && skip=1 ;;',
        '            *) [ -z "$action" ] && action=$word ;;',
        '        esac',
        '    done',
    ]
    actioned = [(name, c) for name, c in commands.items() if c.actions]
    if actioned:
        lines.append('    case $command/$action in')
        for name, c in actioned:
            for a, pos in c.actions.items():
                lines.append('        %s/%s) positional=%s ;;' % (name, a, value_kind(pos) or 'none'))
        lines.append('    esac')
    lines += [
        '    if [[ $cur == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$options" -- "$cur"))',
        '    elif [ -n "$actions" ] && [ -z "$action" ]; then',
        '        COMPREPLY=($(compgen -W "$actions" -- "$cur"))',
        '    else',
        '        _cudnnfe_complete_files "$positional" "$cur"',
        '    fi',
        '}',
        'complete -F _cudnnfe cudnnfe',
    ]
    with open(out_path, 'w', encoding='ascii') as f:
        f.write('\n'.join(lines) + '\n')


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--doc', required=True, help='docs/cudnnfe-tool.md')
    ap.add_argument('--tool', required=True, help='the built cudnnfe')
    ap.add_argument('--runner', default='',
                    help='what runs the tool when it is built for another machine (a cross build\'s emulator)')
    ap.add_argument('--version', required=True)
    ap.add_argument('--docs-dir', required=True, help='where graph-json.md and cudnnfe-tool.md are installed')
    ap.add_argument('--outdir', required=True)
    ap.add_argument('--commands', nargs='+', required=True,
                    help="the commands meson expects pages for (the document's '### cudnnfe X' sections)")
    args = ap.parse_args()

    os.makedirs(args.outdir, exist_ok=True)
    epoch = os.environ.get('SOURCE_DATE_EPOCH')
    date = time.strftime('%Y-%m-%d', time.gmtime(int(epoch))) if epoch else ''
    inline = Inline(args.docs_dir)

    doc = parse_doc(args.doc)
    description = section(doc, 'DESCRIPTION')
    subs = {}
    others = []
    for sub in description.children:
        name = doc_command(sub)
        if name:
            subs[name] = sub
        else:
            others.append(sub)

    RUNNER.extend(shlex.split(args.runner))
    top = parse_top_help(run_tool(args.tool, '--help'))
    commands = {}
    for name, summaries in top.items():
        c = Command(name)
        c.summary = summaries
        parse_command_help(c, run_tool(args.tool, 'help', name))
        commands[name] = c

    if list(subs) != args.commands:
        die('the document describes the commands %s, meson expected %s (reconfigure)'
            % (' '.join(subs), ' '.join(args.commands)))
    if sorted(subs) != sorted(commands):
        die("the tool's commands (%s) and the document's '### cudnnfe COMMAND' sections (%s) differ: "
            'describe each command in docs/cudnnfe-tool.md' % (' '.join(commands), ' '.join(subs)))

    syn_lines = [l for l in code_block(section(doc, 'SYNOPSIS').lines) if l.strip()]
    name_text = ' '.join(l.strip() for l in section(doc, 'NAME').lines if l.strip())
    m = re.match(r'^`?cudnnfe`?\s+\u2014\s+(.*)$', name_text)
    if not m:
        die('docs: the NAME section is not "`cudnnfe` \u2014 what it does"')
    whatis = m.group(1).rstrip('.')
    exit_status = section(doc, 'EXIT STATUS')
    environment = section(doc, 'ENVIRONMENT')
    examples = section(doc, 'EXAMPLES')
    graph_files = [s for s in others if s.title.lower() == 'graph files']
    pages = ['cudnnfe-' + c for c in commands]

    # cudnnfe(1): the whole tool.
    out = []
    header(out, 'cudnnfe', args.version, date)
    out.append('.SH NAME')
    out.append('cudnnfe \\- ' + inline(whatis))
    out.append('.SH SYNOPSIS')
    synopsis(syn_lines, out)
    out.append('.SH DESCRIPTION')
    blocks(description.lines, inline, out)
    out.append('.SH COMMANDS')
    for name, c in commands.items():
        for action, text in c.summary:
            out.append('.TP')
            out.append('\\fBcudnnfe %s\\fR' % minus(' '.join(filter(None, [name, action]))))
            out.append(text_line(minus_options(escape_chars(text[0].upper() + text[1:]))) + '.')
        out.append('See \\fBcudnnfe\\-%s\\fR(1).' % minus(name))
    for sub in others:
        out.append('.SH ' + escape_chars(sub.title.upper()))
        blocks(sub.lines, inline, out)
    for sec in (exit_status, environment, examples):
        out.append('.SH ' + sec.title)
        blocks(sec.lines, inline, out)
    see_also(pages, out)
    write_page(os.path.join(args.outdir, 'cudnnfe.1'), out)

    # cudnnfe-COMMAND(1): its synopsis, description, options.
    for name, c in commands.items():
        sub = subs[name]
        out = []
        header(out, 'cudnnfe-' + name, args.version, date)
        out.append('.SH NAME')
        out.append('cudnnfe\\-%s \\- %s' % (minus(name), minus_options(escape_chars('; '.join(t for _, t in c.summary)))))
        out.append('.SH SYNOPSIS')
        mine = [l for l in syn_lines if re.match(r'^cudnnfe %s(\s|$)' % re.escape(name), l)]
        synopsis(mine or c.usage, out)
        out.append('.SH DESCRIPTION')
        blocks(sub.lines, inline, out)
        options_section(c, out)
        uses_graphs = any('GRAPH' in l for l in mine)
        if uses_graphs:
            for g in graph_files:
                out.append('.SH ' + escape_chars(g.title.upper()))
                blocks(g.lines, inline, out)
        out.append('.SH EXIT STATUS')
        blocks(exit_status.lines, inline, out)
        out.append('.SH ENVIRONMENT')
        blocks(environment.lines, inline, out)
        related = ['cudnnfe'] + ['cudnnfe-' + o for o in commands if o != name and
                                 re.search(r'cudnnfe %s\b' % re.escape(o), '\n'.join(sub.lines))]
        see_also(related, out)
        write_page(os.path.join(args.outdir, 'cudnnfe-%s.1' % name), out)

    completion(commands, os.path.join(args.outdir, 'cudnnfe'))


if __name__ == '__main__':
    main()
