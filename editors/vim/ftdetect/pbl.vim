" .pbl files are pbl models.
autocmd BufNewFile,BufRead *.pbl setfiletype pbl
