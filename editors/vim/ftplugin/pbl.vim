" pbl: comments, indentation, and :PblFmt, which gives the buffer the
" layout of pbl fmt.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
setlocal formatoptions-=t formatoptions+=croql
setlocal expandtab shiftwidth=4 softtabstop=4

" :PblFmt formats the buffer with pbl fmt; on a syntax error it leaves the
" text as it is and shows the error (line:col in the buffer).
command! -buffer -bar PblFmt call s:PblFmt()

if !exists('*s:PblFmt')
  function! s:PblFmt() abort
    let out = systemlist('pbl fmt', getline(1, '$'))
    if v:shell_error
      echohl ErrorMsg
      echomsg join(out, ' ')
      echohl None
      return
    endif
    if out ==# getline(1, '$')
      return
    endif
    let view = winsaveview()
    call setline(1, out)
    if line('$') > len(out)
      silent execute (len(out) + 1) . ',$delete _'
    endif
    call winrestview(view)
  endfunction
endif

let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< expandtab< shiftwidth< softtabstop<'
      \ . ' | delcommand PblFmt'
