/**
 * The oracle commands. `$R` is the docs root: empty inside a docs session (so `$R/zh` is `/zh`),
 * the temp copy's path for real bash; only that prefix is normalised in the output.
 *
 * GNU `grep -r` and `find` list files in directory order, which ext4 leaves unspecified (hash
 * order), so their outputs are compared as sorted lines (`unordered`). Ordered comparisons use
 * `sort` only where byte order (GNU, C locale) and just-bash's `localeCompare` sort agree.
 */
export interface OracleCommand {
  command: string;
  unordered?: boolean;
}

const ordered = (command: string): OracleCommand => ({ command });
const unordered = (command: string): OracleCommand => ({ command, unordered: true });

export const ORACLE_COMMANDS: readonly OracleCommand[] = [
  // ls and ls -R
  ordered("ls $R/"),
  ordered("ls $R/zh"),
  ordered("ls -1 $R/api-playground"),
  ordered("ls $R/es/ai"),
  ordered("ls -R $R/ai"),
  ordered("ls -R $R/zh/ai | head -40"),
  ordered("ls $R/nope"),
  ordered("ls -a $R/integrations | head"),
  ordered("cd $R/zh && ls"),
  ordered("cd $R/fr/ai && ls .."),
  ordered("ls -d $R/zh/ai"),
  // cat, head, tail, wc
  ordered("cat $R/index.mdx"),
  ordered("cat $R/zh/index.mdx"),
  ordered("cat $R/docs.json | head -20"),
  ordered("cat $R/missing.mdx"),
  ordered("cat $R/zh"),
  ordered("head -5 $R/quickstart.mdx"),
  ordered("head -n 3 $R/zh/quickstart.mdx"),
  ordered("tail -4 $R/installation.mdx"),
  ordered("tail -n +3 $R/zh/installation.mdx | head -5"),
  ordered("wc -l $R/index.mdx"),
  ordered("wc -c $R/zh/index.mdx"),
  ordered("wc -w $R/quickstart.mdx"),
  ordered("wc -l < $R/zh/quickstart.mdx"),
  ordered("cat $R/ai/*.mdx | wc -l"),
  ordered("cd $R/zh && head -3 index.mdx quickstart.mdx"),
  ordered("cat $R/zh/ai/*.mdx | wc -c"),
  // grep, recursive (unordered: directory order) and on single files
  unordered("grep -rn Kubernetes $R/deploy $R/api"),
  unordered("cd $R && grep -rn Kubernetes *"),
  unordered("grep -rn 'API key' $R/api"),
  unordered("cd $R && grep -ril 'openapi' *"),
  unordered("grep -ril 'webhook' $R/zh"),
  unordered("grep -rc 'mintlify' $R/ai"),
  ordered("grep -c title $R/index.mdx"),
  ordered("grep -c nothing-here-xyz $R/index.mdx; echo exit=$?"),
  ordered("grep -v '^$' $R/quickstart.mdx | wc -l"),
  ordered("grep -vc 'mint' $R/zh/index.mdx"),
  unordered("grep -rw 'API' $R/api-playground"),
  unordered("cd $R/es && grep -rwn 'mint' *"),
  unordered("grep -rE 'colou?r' $R/customize"),
  unordered("cd $R/api-playground && grep -rEn '(OpenAPI|AsyncAPI) spec' *"),
  unordered("grep -rn 'error\\|warning' $R/deploy"),
  unordered("cd $R && grep -rn 'a+b' *"),
  unordered("grep -ri 'CLAUDE' $R/ai"),
  ordered("cd $R && grep -rin 'mcp server' * | wc -l"),
  ordered("grep -rl '^title:' $R/zh | wc -l"),
  ordered("grep -rh '^title:' $R/es/ai | wc -l"),
  unordered("grep -rn '文档' $R/zh/ai"),
  unordered("grep -rl '接口' $R/zh"),
  unordered("cd $R/zh && grep -ro 'https://[a-z.]*mintlify.com' *"),
  ordered("cd $R && grep -rn 'zzzz-not-present' *; echo exit=$?"),
  unordered("cd $R && grep -rn --include='*.json' mintlify *"),
  unordered("cd $R && grep -rln --include '*.md' Mintlify *"),
  unordered("cd $R && grep -rl --exclude='*.mdx' docs *"),
  unordered("grep -rLi 'mintlify' $R/es"),
  unordered("grep -rn -m 1 'Mintlify' $R/ai"),
  ordered("grep -n -A 1 'Kubernetes' $R/deploy/ci.mdx"),
  ordered("grep -n -B 2 -i 'helm' $R/deploy/self-host.mdx | head -20"),
  unordered("cd $R && grep -F -rn '[!NOTE]' *"),
  unordered("grep -rx -- '---' $R/ai"),
  unordered("grep -rn 'tab[sl]e' $R/components"),
  unordered("cd $R/zh && grep -rn 'Mintlify' ai"),
  ordered("cd $R/api && grep -l 'openapi' *.mdx"),
  unordered("cd $R && grep -rn 'Kubernetes' deploy/../deploy"),
  ordered("grep -q 'Mintlify' $R/index.mdx; echo exit=$?"),
  ordered("grep -o 'Mint[a-z]*' $R/quickstart.mdx | sort | uniq"),
  ordered("grep -w -c 'the' $R/quickstart.mdx"),
  ordered("grep -x 'title: .*' $R/quickstart.mdx"),
  ordered("grep -E '^#{2,3} ' $R/quickstart.mdx"),
  ordered("grep -n '\\bdocs\\b' $R/README.md"),
  ordered("grep -i 'MINTLIFY' $R/zh/quickstart.mdx | head -5"),
  ordered("grep -h 'title' $R/index.mdx $R/quickstart.mdx"),
  ordered("grep -l 'Mintlify' $R/index.mdx $R/quickstart.mdx $R/zh/index.mdx"),
  // find
  unordered("find $R/ai -name '*.mdx'"),
  unordered("find $R/zh -path '*api*' -name '*.mdx'"),
  unordered("find $R/ -type d -name 'ai'"),
  ordered("find $R/es -type f | wc -l"),
  ordered("find $R/ -name 'docs.json'"),
  unordered("find $R/ -type f -name '*.md'"),
  unordered("find $R/fr -maxdepth 1 -type d"),
  unordered("cd $R/zh && find . -name 'index.mdx'"),
  ordered("find $R/ -type f | wc -l"),
  // pipes, sort, uniq, cd and relative paths
  ordered("cd $R/zh/ai && cat ../index.mdx | head -4"),
  ordered("cd $R/ && cat zh/../index.mdx | wc -l"),
  ordered("cd $R/zh && cd .. && ls zh | head -3"),
  ordered("ls $R/zh | sort -r | head -5"),
  ordered("find $R/ -name '*.mdx' | sed 's|.*/||' | sort | uniq -d | wc -l"),
  ordered("cat $R/zh/quickstart.mdx | grep -c '的'"),
  ordered("ls $R/ | wc -l"),
  ordered("cut -d: -f1 $R/zh/index.mdx | head -5"),
  ordered("head -1 $R/zh/ai/*.mdx | wc -l"),
];
