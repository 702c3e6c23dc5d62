SELECT load_extension('x')
