/** yaml-language-server's `yaml.customTags` for the 14 blueprint tags: every tag with each node kind it takes. */
export const CUSTOM_TAGS = [
  '!KeyOf scalar', '!Env scalar', '!Env sequence', '!File scalar', '!File sequence', '!Context scalar',
  '!Context sequence', '!ParseJSON scalar', '!Format sequence', '!Find sequence', '!FindObject sequence',
  '!Condition sequence', '!If sequence', '!Enumerate sequence', '!Index scalar', '!Value scalar',
  '!AtIndex sequence',
]; // prettier-ignore
