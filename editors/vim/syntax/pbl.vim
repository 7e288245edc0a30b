" Vim syntax file
" Language:    pbl, a language for probabilistic models (https://github.com/pbl-lang/pbl)
" Filenames:   *.pbl
" Keywords follow grammar.Keywords (grammar/keywords.go); a test in
" editors/ checks that every one of them is here.

if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

" Identifiers are letters of any script, digits and underscores.
syn iskeyword @,48-57,_,192-255

" Statements and declarations.
syn keyword pblStatement   import query expect learn from with within
syn keyword pblDeclaration var data space mixture naive_bayes tan decision utility latent observed
syn keyword pblKeyword     given of normalize in by prior if else leak sd cov
syn keyword pblType        bool real
syn keyword pblBoolean     true false
syn keyword pblLogic       and or not
syn keyword pblFunction    normal bernoulli conjunction uniform noisy_or noisy_max lookup logistic softmax
syn keyword pblFunction    exp log sqrt sigmoid abs

" Query forms are keywords only directly before a parenthesis: a variable
" may be named P or density.
syn match   pblQuery       "\<\%(P\|MPE\|MAP\|ML\|MDL\|Gibbs\|indep\|density\|entropy\|MI\|MEU\|policy\|EU\|identify\|adjust\|CF\|do\)\ze\s*("

" The names a var declaration declares, up to the colon.
syn match   pblDeclared    "\%(\<var\s\+\)\@<=[^:]\{-1,}\ze:" contains=pblString,pblNumber,pblComment,pblBlockComment

syn match   pblNumber      "-\=\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=\>"
syn match   pblNumber      "-\=\.\d\+\%([eE][+-]\=\d\+\)\=\>"

syn region  pblString      start=+"+ skip=+\\\\\|\\"+ end=+"\|$+ contains=pblEscape oneline
syn match   pblEscape      contained +\\\%([abfnrtv\\"']\|\o\{3}\|x\x\{2}\|u\x\{4}\|U\x\{8}\)+

syn match   pblOperator    "->\|==\|!=\|<=\|>=\|[<>=|~+*/^]\|\.\."
syn match   pblMissing     "?"

syn keyword pblTodo        contained TODO FIXME XXX NOTE
syn match   pblComment     "//.*$" contains=pblTodo,@Spell
syn region  pblBlockComment start="/\*" end="\*/" contains=pblTodo,@Spell

hi def link pblStatement    Statement
hi def link pblDeclaration  StorageClass
hi def link pblKeyword      Keyword
hi def link pblType         Type
hi def link pblBoolean      Boolean
hi def link pblLogic        Operator
hi def link pblFunction     Function
hi def link pblQuery        Function
hi def link pblDeclared     Identifier
hi def link pblNumber       Number
hi def link pblString       String
hi def link pblEscape       SpecialChar
hi def link pblOperator     Operator
hi def link pblMissing      Constant
hi def link pblTodo         Todo
hi def link pblComment      Comment
hi def link pblBlockComment Comment

let b:current_syntax = 'pbl'

let &cpo = s:cpo_save
unlet s:cpo_save
